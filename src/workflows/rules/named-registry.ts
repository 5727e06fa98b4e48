/**
 * Functions registered by name in workflow code, for runs to reference from
 * JSON: custom stop conditions and approval policies. A name is registered
 * once; an empty or repeated name is a programming error and throws.
 */
export interface NamedRegistry<T> {
  /** Adds `entry` as `name`; throws when the name is empty or already taken. */
  register(name: string, entry: T): void;
  /** The entry registered as `name`, if any. */
  get(name: string): T | undefined;
  /** Every registered name, sorted. */
  names(): string[];
}

/** How a registry names what it holds in its errors. */
export interface RegistryWording {
  /** The error for an empty name. */
  emptyName: string;
  /** The error for a name registered before. */
  taken: (name: string) => string;
}

/** A registry holding `entries`, to which more can be registered. */
export function createNamedRegistry<T>(wording: RegistryWording, entries: Record<string, T> = {}): NamedRegistry<T> {
  const registered = new Map<string, T>();
  const registry: NamedRegistry<T> = {
    register(name, entry) {
      if (name.length === 0) throw new Error(wording.emptyName);
      if (registered.has(name)) throw new Error(wording.taken(name));
      registered.set(name, entry);
    },
    get: (name) => registered.get(name),
    names: () => [...registered.keys()].sort(),
  };
  for (const [name, entry] of Object.entries(entries)) registry.register(name, entry);
  return registry;
}
