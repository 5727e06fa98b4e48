/**
 * The part of React 19's API the console uses, typed here because the project has no `@types/react` (the brief
 * allowed no new package): hooks and events are typed, JSX elements take any attribute. Replace with `@types/react`
 * and `@types/react-dom` when they are added.
 */
declare module 'react' {
  export type SetState<T> = (value: T | ((previous: T) => T)) => void;
  export function useState<T>(initial: T | (() => T)): [T, SetState<T>];
  export function useState<T = undefined>(): [T | undefined, SetState<T | undefined>];
  export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
  export function useCallback<T extends (...args: never[]) => unknown>(callback: T, deps: readonly unknown[]): T;
  export function useId(): string;
  export const StrictMode: (props: { children?: unknown }) => JSX.Element;
  export interface FormEvent {
    preventDefault(): void;
  }
}

declare module 'react/jsx-runtime' {
  export const jsx: unknown;
  export const jsxs: unknown;
  export const Fragment: unknown;
}

declare module 'react-dom/client' {
  export function createRoot(container: Element): { render(node: unknown): void; unmount(): void };
}

declare namespace JSX {
  type Element = unknown;
  interface ElementChildrenAttribute {
    children: unknown;
  }
  interface IntrinsicAttributes {
    key?: string | number;
  }
  interface IntrinsicElements {
    [name: string]: {
      onChange?: (event: { target: { value: string } }) => void;
      onSubmit?: (event: { preventDefault(): void }) => void;
      onClick?: () => void;
      [attribute: string]: unknown;
    };
  }
}
