import { ABSTRACT_LIMIT, cutAtWord, OVERVIEW_LIMIT } from './node-abstract';

export interface SidecarChild {
  uri: string;
  kind: 'file' | 'directory';
  abstract: string;
}

export interface DirectorySidecars {
  abstract: string;
  overview: string;
}

/**
 * Deterministic, extractive sidecars of a directory: the overview lists each visible child with a
 * one-line abstract (files before directories are not reordered: children come sorted by URI), cut
 * to fit {@link OVERVIEW_LIMIT}; the abstract names the directory and its first children. `total` is
 * the number of visible children when `children` is only the first of them (large directories are
 * summarised from a bounded prefix).
 */
export function directorySidecars(dirUri: string, children: SidecarChild[], total?: number): DirectorySidecars {
  const name = dirUri.slice(dirUri.lastIndexOf('/') + 1) || dirUri;
  const visible = children.filter((c) => !c.uri.slice(c.uri.lastIndexOf('/') + 1).startsWith('.'));
  const count = Math.max(total ?? 0, visible.length);
  const header = `# ${name}\n\n${count} item${count === 1 ? '' : 's'} in ${dirUri}.\n`;
  const lines: string[] = [];
  let used = header.length;
  for (const [i, c] of visible.entries()) {
    const base = c.uri.slice(c.uri.lastIndexOf('/') + 1) + (c.kind === 'directory' ? '/' : '');
    const gist = cutAtWord(c.abstract.replace(/\s+/g, ' ').trim(), 160);
    const line = gist ? `- ${base}: ${gist}` : `- ${base}`;
    const more = `- … and ${count - i} more`;
    if (used + line.length + 1 + more.length + 1 > OVERVIEW_LIMIT) {
      lines.push(more);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  if (lines.length === visible.length && count > visible.length) lines.push(`- … and ${count - visible.length} more`);
  const overview = `${header}\n${lines.join('\n')}`.trim();
  const firstGists = visible
    .slice(0, 3)
    .map((c) => cutAtWord(c.abstract.replace(/\s+/g, ' ').trim(), 60) || c.uri.slice(c.uri.lastIndexOf('/') + 1))
    .join('; ');
  const abstract = cutAtWord(
    `${name}: ${count} item${count === 1 ? '' : 's'}${firstGists ? ` — ${firstGists}` : ''}`,
    ABSTRACT_LIMIT,
  );
  return { abstract, overview };
}
