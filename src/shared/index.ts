export * from './constants';
export * from './messages';
export * from './agent-input';
export * from './agent-result';
export * from './activity-types';
export * from './definitions';
export * from './control';
export * from './search-attributes';
