import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { EnvDto } from './env.dto';

// Every bound is configuration and documented: each variable the environment schema validates has a row in
// the README's configuration tables (name, default, what it bounds), and no row names a variable the
// schema does not know.
describe('configuration is documented', () => {
  const readme = readFileSync(resolve(__dirname, '../../../README.md'), 'utf8');
  const rows = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  const names = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvDto, '', true, false)
      .map((m) => m.propertyName),
  );

  it('each validated variable has a README table row', () => {
    expect(names.size).toBeGreaterThan(50);
    expect([...names].filter((n) => !rows.has(n))).toEqual([]);
  });

  it('each README table row names a validated variable', () => {
    expect([...rows].filter((n) => !names.has(n))).toEqual([]);
  });
});
