import { connectionBound, FD_RESERVE, openFileLimit } from './connection-bound';

const limits = (soft: string) =>
  'Limit                     Soft Limit           Hard Limit           Units     \n' +
  'Max cpu time              unlimited            unlimited            seconds   \n' +
  `Max open files            ${soft.padEnd(20)} 1048576              files     \n`;

describe('connection bound', () => {
  it('reads the soft open-file limit, or nothing when it is unlimited or unreadable', () => {
    expect(openFileLimit(limits('1024'))).toBe(1024);
    expect(openFileLimit(limits('unlimited'))).toBeNull();
    expect(openFileLimit(null)).toBeNull();
    expect(openFileLimit('garbage')).toBeNull();
  });

  it('keeps the configured bound where the limit holds it, and lowers it beside the reserve where not', () => {
    expect(connectionBound(10_000, 20_000)).toEqual({ max: 10_000, lowered: false });
    expect(connectionBound(10_000, null)).toEqual({ max: 10_000, lowered: false });
    expect(connectionBound(10_000, 1024)).toEqual({ max: 1024 - FD_RESERVE, lowered: true });
    expect(connectionBound(500, 1024)).toEqual({ max: 500, lowered: false });
    // Never below the setting's own minimum.
    expect(connectionBound(10_000, 100)).toEqual({ max: 16, lowered: true });
  });
});
