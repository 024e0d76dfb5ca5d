import { byteGroups, EXPORT_PAGE_BYTES } from './account-export.repository';

describe('byteGroups (an export page fetched in bounded groups)', () => {
  const rows = (...sizes: number[]) => sizes.map((bytes, i) => ({ id: i, bytes }));
  const ids = (groups: { id: number }[][]) => groups.map((g) => g.map((r) => r.id));

  it('keeps rows in order, each group within EXPORT_PAGE_BYTES', () => {
    const half = EXPORT_PAGE_BYTES / 2;
    expect(ids(byteGroups(rows(half, half, 1, half, 10)))).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
    expect(ids(byteGroups(rows(1, 2, 3)))).toEqual([[0, 1, 2]]);
  });

  it('puts a row larger than a group alone, and reads sizes given as strings (bigint columns)', () => {
    const big = EXPORT_PAGE_BYTES + 1;
    expect(ids(byteGroups(rows(10, big, 10)))).toEqual([[0], [1], [2]]);
    expect(
      ids(
        byteGroups([
          { id: 0, bytes: String(EXPORT_PAGE_BYTES) },
          { id: 1, bytes: '1' },
        ]),
      ),
    ).toEqual([[0], [1]]);
    expect(byteGroups([])).toEqual([]);
  });
});
