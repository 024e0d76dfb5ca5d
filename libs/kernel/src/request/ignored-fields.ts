/**
 * `stats.ignored` (docs/contract.md#cross-field-validation item 4): `"level"` when `level` is non-null, then `"limit"`
 * when quotas or
 * purpose is set and `limit` was sent or `node_limit` is non-null. [] when nothing was ignored.
 */
export function ignoredFields(body: Readonly<Record<string, unknown>>): string[] {
  const ignored: string[] = [];
  const given = (key: string) => body[key] !== null && body[key] !== undefined;
  if (given('level')) ignored.push('level');
  const bucketed = given('quotas') || given('purpose');
  if (bucketed && (Object.prototype.hasOwnProperty.call(body, 'limit') || given('node_limit'))) ignored.push('limit');
  return ignored;
}
