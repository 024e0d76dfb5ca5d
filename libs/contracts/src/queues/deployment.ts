/**
 * DI token of this deployment's id (the store's `deployment` row), provided by the store module; a
 * process without a store (the rewriter) has none. The queue module fences its Redis prefix with it.
 */
export const DEPLOYMENT_ID = Symbol('DEPLOYMENT_ID');
