/**
 * Paths a ROOT key may call in api_key mode (docs/contract.md#accounts-users-and-keys); everything else is tenant data.
 */
const ROOT_PREFIXES = [
  '/api/v1/admin',
  '/api/v1/observer',
  '/api/v1/console',
  '/api/v1/tasks',
  '/api/v1/system/backend',
  '/api/v1/system/sync',
  '/api/v1/system/status',
  '/api/v1/system/wait',
  '/api/v1/debug/health',
];

export function isRootPath(path: string): boolean {
  return ROOT_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`) || path.startsWith(`${p}?`));
}
