import { searchText } from '@app/kernel';

// Function words: in a small tenant they are not rare enough for IDF to silence them, and they would
// dilute the share of the query a node covers.
const STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is am are was were be been being ' +
    'do does did doing done have has had having i me my mine we us our you your he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any both each some such no not nor ' +
    'only own same so than too very can could will would shall should may might must just also up down out over under again ' +
    'further once s t d ll m re ve let yes yeah oh hey hi ' +
    '的 了 是 在 吗 呢 吧 啊 呀 和 与 也 都 就 这 那 这个 那个 有 个 一个 很 还 又 什么 怎么 怎样 哪 哪里 谁 为什么 ' +
    '多少 几 之 而 及 或 被 把 对 从 到 给 让 着 得 地 嘛 一下 一些'
  ).split(' '),
);

/** Most distinct terms taken from one query (the store weighs fewer still); the rest of a long query is ignored. */
export const MAX_QUERY_TERMS = 64;

/** Lexical query terms: segmented exactly like a node's `search_text`, distinct, function words dropped. */
export function queryTerms(query: string): string[] {
  const out = new Set<string>();
  for (const term of searchText(query).split(' ')) {
    if (term && !STOP.has(term)) out.add(term);
    if (out.size === MAX_QUERY_TERMS) break;
  }
  return [...out];
}
