/**
 * Deterministic synthetic memory files for the find benchmark: English and Chinese, Zipf-distributed
 * vocabularies (a few very common words, a long tail of rare names), identifiers and numbers, so
 * both the lexical and the vector side see realistic selectivity at 1k–100k nodes.
 */

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN_COMMON = (
  'user team project meeting week today morning evening weekend plan work home family friend trip book movie music ' +
  'coffee dinner lunch office release deploy service bug fix test review design idea note call email report budget ' +
  'client customer product feature update issue server database cache build version launch sprint goal result ' +
  'likes prefers wants needs started finished moved changed asked told visited bought learned decided shared ' +
  'new old big small good great busy quiet early late first last next every often always never'
).split(' ');
const SYLLABLES =
  'ka lo mi ren tas vel dor pin sha qu zen fa ri mo lek tor bal sen vik ul gra nes pol dim har yo cel bru fin'.split(
    ' ',
  );
const ZH_COMMON = (
  '用户 喜欢 工作 项目 会议 周末 朋友 家人 早上 晚上 咖啡 电影 音乐 旅行 学习 公司 服务 数据库 版本 发布 ' +
  '计划 问题 修复 测试 客户 产品 功能 更新 预算 报告 上线 需求 设计 准备 完成 开始 决定 分享 最近 经常'
).split(' ');
const ZH_CHARS =
  '山水风云花草星月海天林石光雨雪竹松桥湖河城村田春秋夏冬金银铜铁红绿蓝白黑青安宁和平明亮清远高长乐悦晨夕江南北东西中外前后左右上下大小多少新旧快慢远近深浅冷热早晚今古生死真假美丑好坏对错老少男女父母兄弟姐妹儿孙师生朋友客主官民兵将王侯君臣龙虎马牛羊猪狗鸡鸭鱼鸟虫蛇狼熊鹿兔猫鼠茶酒饭菜米面肉蛋奶糖盐油醋酱汤粥饼果桃李梅杏梨枣瓜豆麦稻谷棉麻丝布衣帽鞋袜床桌椅门窗墙屋楼塔亭台阁院园街巷路车船舟桨帆灯火炉烟电钟表笔墨纸砚书画琴棋诗词歌舞剑刀弓箭'.split(
    '',
  );

/** Rank-`i` word of a Zipf tail (s = 1): index i with probability ∝ 1/(i+1), by inverse transform. */
function zipfIndex(r: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(r() * Math.log(n + 1)) - 1));
}

function rareEnglish(i: number): string {
  let w = '';
  let x = i + 7;
  for (let k = 0; k < 3; k++) {
    w += SYLLABLES[x % SYLLABLES.length];
    x = Math.floor(x / SYLLABLES.length) + k * 13;
  }
  return w;
}

function rareChinese(i: number): string {
  return ZH_CHARS[i % ZH_CHARS.length] + ZH_CHARS[Math.floor(i / ZH_CHARS.length) % ZH_CHARS.length];
}

export interface SyntheticFile {
  uri: string;
  content: string;
  /** A query built from this file's own rarer words (for latency runs and a self-recall sanity check). */
  query: string;
}

const KINDS = ['events', 'entities', 'preferences'];

/** The `i`-th file of a tenant: 2 in 3 English, 1 in 3 Chinese, under one user's memories. */
export function syntheticFile(seed: number, i: number, user: string, rareCount: number): SyntheticFile {
  const r = rng(seed * 1_000_003 + i);
  const zh = i % 3 === 2;
  const words: string[] = [];
  const rare: string[] = [];
  const n = 18 + Math.floor(r() * 30);
  for (let k = 0; k < n; k++) {
    if (r() < 0.6)
      words.push(zh ? ZH_COMMON[Math.floor(r() * ZH_COMMON.length)] : EN_COMMON[Math.floor(r() * EN_COMMON.length)]);
    else {
      const w = zh ? rareChinese(zipfIndex(r, rareCount)) : rareEnglish(zipfIndex(r, rareCount));
      words.push(w);
      rare.push(w);
    }
  }
  if (!zh && r() < 0.2) words.push(`ERR_${rareEnglish(i).toUpperCase()}_${i % 97}`);
  if (!zh && r() < 0.2) words.push(`src/${rareEnglish(i + 1)}/${rareEnglish(i + 2)}.ts`);
  const body = zh ? words.join('') + '。' : `${words.join(' ')}.`;
  const picks = [...new Set(rare.length ? rare : words)].slice(0, 3);
  return {
    uri: `viking://user/${user}/memories/${KINDS[i % KINDS.length]}/m${i}.md`,
    content: `# Summary\n${body}`,
    query: zh ? picks.join('') : picks.join(' '),
  };
}

export const MEMORY_KINDS = KINDS;
