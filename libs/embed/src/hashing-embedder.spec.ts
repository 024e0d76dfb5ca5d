import { createEmbedder } from './create-embedder';
import { HashingEmbedder } from './hashing-embedder';
import { cosine } from './vector-math';

const embedder = new HashingEmbedder();
const sim = (a: string, b: string) => cosine(embedder.embedOne(a), embedder.embedOne(b));
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function best(query: string, memories: string[]): string {
  const q = embedder.embedOne(query);
  return memories.map((m) => [cosine(q, embedder.embedOne(m)), m] as const).sort((a, b) => b[0] - a[0])[0][1];
}

describe('HashingEmbedder', () => {
  it('is deterministic across instances', async () => {
    const [a] = await new HashingEmbedder().embed(['The deploy failed with ERR_CONN_RESET']);
    const [b] = await new HashingEmbedder().embed(['The deploy failed with ERR_CONN_RESET']);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it.each([
    ['english', 'Alice is allergic to peanuts'],
    ['chinese', '用户对花生过敏'],
    ['empty', ''],
    ['punctuation only', '?!…'],
  ])('returns a unit vector of the configured size (%s)', async (_name, text) => {
    const [v] = await new HashingEmbedder({ dim: 256 }).embed([text]);
    expect(v).toHaveLength(256);
    expect(norm(v)).toBeCloseTo(1, 5);
  });

  it.each([
    [
      'english',
      'I painted a sunrise over the lake last summer',
      'she paints sunrises at the lake',
      'quarterly tax filing deadline moved',
    ],
    ['stemming', 'We went hiking in the mountains', 'mountain hikes', 'the printer is out of toner'],
    ['chinese', '用户周末喜欢和朋友去爬山', '用户周末一般去爬山吗', '信用卡账单日是每月五号'],
  ])('scores a paraphrase above an unrelated text (%s)', (_name, memory, paraphrase, unrelated) => {
    const para = sim(memory, paraphrase);
    const other = sim(memory, unrelated);
    expect(para).toBeGreaterThan(other + 0.15);
    expect(other).toBeLessThan(0.15);
  });

  it('finds a Chinese memory from a Chinese question', () => {
    const memories = [
      '用户对花生过敏，吃了会起疹子。',
      '用户的女儿叫小雨，今年六岁。',
      '用户的服务部署在阿里云的杭州区域。',
      'Alice likes jazz',
    ];
    expect(best('用户的女儿几岁了？', memories)).toBe(memories[1]);
    expect(best('服务部署在哪个云？', memories)).toBe(memories[2]);
  });

  it.each([
    ['error code', 'ERR_CONN_RESET', 'retry loop hit ERR_CONN_RESET twice'],
    ['file path', 'src/foo/bar.ts', 'the bug is in src/foo/bar.ts line 12'],
  ])('matches exact identifiers (%s)', (_name, query, hit) => {
    const memories = [
      'retry loop hit ERR_TIMEOUT twice',
      hit,
      'the bug is in src/baz/qux.ts line 12',
      'connection reset by the peer',
    ];
    expect(best(query, memories)).toBe(hit);
  });

  it('names model, version and dimension in its id', () => {
    expect(new HashingEmbedder({ dim: 256 }).id).toBe('local-hash:v1:256');
    expect(createEmbedder({ provider: 'local' }).id).toBe('local-hash:v1:512');
    expect(() => new HashingEmbedder({ dim: 3 })).toThrow(RangeError);
  });
});
