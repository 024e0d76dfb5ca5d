export * from './directory-sidecars';
export * from './node-abstract';
export * from './search-text';
export * from './index-run-verdict';
