/**
 * DI token of this deployment's id (the store's `deployment` row), provided by the store module; a
 * process without a store (the rewriter) has none. The queue module fences its Redis prefix with it.
 */
export const DEPLOYMENT_ID = Symbol('DEPLOYMENT_ID');

/**
 * DI token of a {@link WorkAccount}, provided by the queue module (which keeps the work context); the store
 * module takes it, when there, to share the embedded store's one connection fairly between accounts
 * (docs/limits-and-security.md, "The embedded store's statements, account by account").
 */
export const WORK_ACCOUNT = Symbol('WORK_ACCOUNT');

/** The account of the work in progress (an HTTP request's after authentication, a job's), if any. */
export type WorkAccount = () => string | undefined;
