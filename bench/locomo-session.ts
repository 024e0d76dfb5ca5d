/**
 * `bench:locomo --ingest session`: the conversation reaches Muninn the way an agent plugin sends it —
 * each LoCoMo session posted as messages with its date (`messages/batch`), committed, its task awaited —
 * and the product's own extractor (offline unless the server has a model) writes the memories. The
 * first speaker is the `user`, the other the `assistant`; each message carries its speaker as `peer_id`
 * and a shared photo's caption as text, as a plugin would. Nothing here writes a memory itself.
 */
import { OutboxRepository } from '@app/store';
import { TestApp } from '@app/testing';
import { Conversation } from './locomo-data';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const peer = (speaker: string) => speaker.replace(/[^a-zA-Z0-9_.@-]+/g, '-').slice(0, 64) || 'speaker';

export async function ingestBySession(
  app: TestApp,
  headers: Record<string, string>,
  conv: Conversation,
): Promise<{ memories: number; commits: number }> {
  let memories = 0;
  let commits = 0;
  for (const s of conv.sessions) {
    const sid = `locomo-${conv.id}-s${s.n}`.replace(/[^a-zA-Z0-9_.@-]+/g, '-');
    const createdAt = s.isoDate ? `${s.isoDate}T12:00:00Z` : undefined;
    const messages = s.turns.map((t) => ({
      role: t.speaker === conv.speakers[0] ? 'user' : 'assistant',
      content: `${t.text}${t.caption ? ` [shares a photo: ${t.caption}]` : ''}`,
      peer_id: peer(t.speaker),
      ...(createdAt ? { created_at: createdAt } : {}),
    }));
    for (let i = 0; i < messages.length; i += 100) {
      const r = await app.request('POST', `/api/v1/sessions/${sid}/messages/batch`, {
        headers,
        body: { messages: messages.slice(i, i + 100) },
      });
      if (r.status !== 200) throw new Error(`messages/batch failed: ${r.status} ${r.text.slice(0, 300)}`);
    }
    const c = await app.request('POST', `/api/v1/sessions/${sid}/commit`, { headers, body: {} });
    if (c.body?.result?.status !== 'accepted') throw new Error(`commit not accepted: ${c.text.slice(0, 300)}`);
    commits += 1;
    for (;;) {
      const t = (await app.request('GET', `/api/v1/tasks/${c.body.result.task_id}`, { headers })).body.result;
      if (t?.status === 'failed') throw new Error(`extraction failed: ${t.error}`);
      if (t?.status === 'completed') {
        memories += t.result.memories_extracted.memory_write ?? 0;
        break;
      }
      await sleep(100);
    }
  }
  // Questions are asked once every extracted memory is indexed.
  const outbox = app.nest.get(OutboxRepository, { strict: false });
  while ((await outbox.count()) > 0) await sleep(200);
  return { memories, commits };
}
