import { extractionWindows, pagesAfter, ProposedMemory, SessionMessage, WINDOW_PAGES } from '..';

const msg = (i: number, text: string, role = 'user'): SessionMessage => ({
  id: `m${i}`,
  role,
  parts: [{ type: 'text', text }],
  created_at: '2026-05-04T10:00:00Z',
});

describe('extraction windows (docs/sessions.md "Extraction")', () => {
  it('cuts at message boundaries into windows of at most maxChars of numbered lines, in order', () => {
    // Each line: "[user]: " (8) + 92 characters + 8 for its number and newline = 108.
    const messages = Array.from({ length: 5 }, (_, i) => msg(i, `${i}`.padEnd(92, 'x')));
    const { windows, leftOut } = extractionWindows(messages, 220, 10);
    expect(windows.map((w) => w.map((m) => m.id))).toEqual([['m0', 'm1'], ['m2', 'm3'], ['m4']]);
    expect(leftOut).toBe(0);
    expect(extractionWindows(messages, 100_000, 10).windows).toEqual([messages]);
  });

  it('stops at maxWindows and counts what it left out; a message longer than a window is one of its own', () => {
    const messages = [msg(0, 'short'), msg(1, 'y'.repeat(500)), msg(2, 'short'), msg(3, 'short')];
    const all = extractionWindows(messages, 100, 10);
    expect(all.windows.map((w) => w.map((m) => m.id))).toEqual([['m0'], ['m1'], ['m2', 'm3']]);
    const capped = extractionWindows(messages, 100, 2);
    expect(capped.windows.map((w) => w.map((m) => m.id))).toEqual([['m0'], ['m1']]);
    expect(capped.leftOut).toBe(2);
    expect(extractionWindows([], 100, 2)).toEqual({ windows: [], leftOut: 0, cut: [] });
    // The prompt cuts the long one (its tail goes to the offline extractor); the short ones fit.
    expect(all.cut).toEqual([{ message: messages[1], window: 1 }]);
    expect(capped.cut).toEqual([{ message: messages[1], window: 1 }]);
    expect(extractionWindows([msg(4, '', 'tool')], 0, 2).cut).toEqual([]);
  });

  it('messages that are no turn (tool output, empty) ride along with their window at no cost', () => {
    const messages = [msg(0, 'a'.repeat(80)), msg(1, '', 'tool'), msg(2, 'b'.repeat(80))];
    const { windows } = extractionWindows(messages, 100, 10);
    expect(windows.map((w) => w.map((m) => m.id))).toEqual([['m0', 'm1'], ['m2']]);
  });

  it('shows the next window the pages proposed so far (newest version first), then the stored ones it did not replace', () => {
    const page = (path: string, content: string, peerId?: string): ProposedMemory => ({
      path,
      content,
      memoryType: path.startsWith('events/') ? 'events' : 'preferences',
      mode: 'replace',
      ...(peerId ? { peerId } : {}),
    });
    const stored = [
      { path: 'preferences/u/tea.md', content: 'old tea' },
      { path: 'preferences/u/tea.md', content: 'peer tea', peerId: 'bob' },
      { path: 'profile.md', content: 'profile' },
    ];
    const proposed = [
      page('preferences/u/tea.md', 'new tea'),
      page('events/2026/05/04/x.md', 'an event'),
      page('preferences/u/coffee.md', 'coffee'),
    ];
    expect(pagesAfter(stored, proposed)).toEqual([
      { path: 'preferences/u/coffee.md', content: 'coffee' },
      { path: 'preferences/u/tea.md', content: 'new tea' },
      { path: 'preferences/u/tea.md', content: 'peer tea', peerId: 'bob' },
      { path: 'profile.md', content: 'profile' },
    ]);
    const many = Array.from({ length: 60 }, (_, i) => page(`preferences/u/p${i}.md`, `${i}`));
    expect(pagesAfter(stored, many)).toHaveLength(WINDOW_PAGES);
  });
});
