/**
 * The body an OpenAI-protocol `/embeddings` stand-in answers for `input`: a small deterministic vector per text
 * (from its first characters), so the same text always gets the same vector and different texts mostly differ.
 */
export function fakeEmbeddingBody(input: string[], dim: number): string {
  const data = input.map((t, index) => ({
    index,
    embedding: Array.from({ length: dim }, (_, i) => ((t.charCodeAt(i % t.length) || 1) % 7) + 1),
  }));
  return JSON.stringify({ data });
}
