/**
 * A deterministic corpus of invented reference content for the search benchmark: plausible fantasy
 * names built from word parts, descriptions of 30 to 150 words, traits, levels and the per-type
 * fields advanced search filters on. The same seed always gives the same rows.
 */
import type postgres from "postgres";
import WORD_LISTS from "./corpus_words.json" with { type: "json" };

/** A seeded pseudo-random source (mulberry32): fast, tiny, and the same on every machine. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element, uniformly. */
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** One element, the first ones far more often (roughly Zipf: weight 1/rank). */
  skewed<T>(list: readonly T[]): T {
    const index = Math.floor(Math.exp(this.next() * Math.log(list.length + 1))) - 1;
    return list[Math.min(index, list.length - 1)] as T;
  }

  /** One element, the first ones more often, gently (density 1/√rank: a flatter tail). */
  leaning<T>(list: readonly T[]): T {
    const r = this.next();
    return list[Math.min(Math.floor(r * r * list.length), list.length - 1)] as T;
  }

  /** Up to `n` distinct elements. */
  some<T>(list: readonly T[], n: number): T[] {
    const chosen = new Set<T>();
    for (let i = 0; i < n * 3 && chosen.size < n; i++) chosen.add(this.pick(list));
    return [...chosen];
  }
}

/** The words of a list written as one string, split on `separator`. */
function words(list: string, separator = " "): readonly string[] {
  return list.split(separator);
}

/** A word list of `corpus_words.json`, whose lines are runs of words. */
function list(name: keyof typeof WORD_LISTS): readonly string[] {
  return words(WORD_LISTS[name].join(" "));
}

// Word parts (`corpus_words.json`). Every word is either common English or made up of syllables.
const ONSETS = list("onsets");
const MIDDLES = ["a", "e", "i", "o", "an", "ar", "en", "il", "or", "ys", "u", "ae", ""];
const CODAS = list("codas");
const ADJECTIVES = list("adjectives");
const SPELL_NOUNS = list("spell_nouns");
const ITEM_NOUNS = list("item_nouns");
const MATERIALS = list("materials");
const FEAT_WORDS = list("feat_words");
const BEASTS = list("beasts");
const HAZARD_NOUNS = ["Trap", "Snare", "Pit", "Glyph", "Miasma", "Rockfall", "Haunt", "Mire"];
const ROLES = list("roles");
const PLACES = list("places");

/** The hand-written description vocabulary, most common first (`corpus_words.json`). */
export const VOCABULARY: readonly string[] = list("vocabulary");

/** Words most descriptions share: function words and the rules' own terms, most common first. */
export const COMMON_WORDS: readonly string[] = VOCABULARY.slice(0, 79);

/** Topical words (fire, dragon, ruin, bargain...): what a person searches descriptions for. */
export const TOPIC_WORDS: readonly string[] = VOCABULARY.slice(79).filter((w) => w.length >= 4);

/** Common words a person might still search for ("damage", "creature"): each in most rows. */
export const BROAD_WORDS: readonly string[] = COMMON_WORDS.filter((w) => w.length >= 5);

/**
 * The topical tail of descriptions: the topic words interleaved with 1,600 made-up lore words
 * ("korilith", "vashmora"), so that, as in real text, most topical words are rare and the topic
 * words spread over the ranks of a long tail.
 */
const TOPICAL_TAIL: readonly string[] = (() => {
  const random = new Random(0x10e);
  const lore = new Set<string>();
  while (lore.size < 1_600) {
    lore.add(`${random.pick(ONSETS)}${random.pick(MIDDLES)}${random.pick(CODAS)}`.toLowerCase());
  }
  const loreWords = [...lore].filter((w) => !VOCABULARY.includes(w));
  const length = Math.max(TOPIC_WORDS.length, loreWords.length);
  return Array.from({ length }, (_, i) => [TOPIC_WORDS[i], loreWords[i]])
    .flat().filter((w) => w !== undefined);
})();

const PREREQUISITES = words(
  "trained in Athletics|trained in Acrobatics|trained in Arcana|trained in Stealth|" +
    "trained in Medicine|expert in Athletics|expert in Perception|expert in Stealth|" +
    "master in Athletics|Strength +2|Dexterity +2|Wisdom +2|Charisma +2|Intelligence +2|" +
    "Constitution +2",
  "|",
);
const SPELL_AREAS = words("10-foot burst|15-foot cone|30-foot line|20-foot emanation", "|");
const SPELL_TARGETS = words("1 creature|up to 3 creatures|1 object|you", "|");
const DURATIONS = words("1 round|1 minute|10 minutes|sustained up to 1 minute", "|");
const USAGES = words("held in 1 hand|held in 2 hands|worn cloak|worn amulet", "|");
const ABILITY_TYPES = words("feat action class-feature physical-feature sense heritage mode");
const ACTIONS = words("ONE-ACTION TWO-ACTIONS THREE-ACTIONS REACTION FREE-ACTION");
const FREQUENCIES = words("once per day|once per round|once per 10 minutes", "|");

/** The content tables of the corpus and their share of the rows (sums to 1). */
export const TABLE_SHARES = {
  ability_block: 0.3,
  item: 0.22,
  spell: 0.18,
  creature: 0.12,
  hazard: 0.02,
  trait: 0.04,
  class: 0.01,
  archetype: 0.025,
  class_archetype: 0.015,
  versatile_heritage: 0.01,
  ancestry: 0.015,
  background: 0.025,
  language: 0.02,
} as const;

/** A corpus table name. */
export type CorpusTable = keyof typeof TABLE_SHARES;

/** One generated row: column values as `jsonb_populate_recordset` takes them. */
export type CorpusRow = Record<string, unknown>;

/** Positions of the traits content rows choose from (the first ones most often). */
const POPULAR_TRAITS = Array.from({ length: 300 }, (_, i) => i);

/** The generator of one corpus. Trait ids are assigned by the database, so rows refer to them by
 * position: `traits` holds indexes into the trait rows until `resolveTraits` maps them to ids. */
export class CorpusGenerator {
  readonly #random: Random;
  readonly #names = new Map<CorpusTable, Set<string>>();

  constructor(seed: number) {
    this.#random = new Random(seed);
  }

  /** How many rows of each table a corpus of `total` rows has. */
  static counts(total: number): Record<CorpusTable, number> {
    return Object.fromEntries(
      Object.entries(TABLE_SHARES).map(([table, share]) => [
        table,
        Math.max(1, Math.round(total * share)),
      ]),
    ) as Record<CorpusTable, number>;
  }

  /** A proper name made of syllables: "Korilith", "Ashwen". */
  #properName(): string {
    const r = this.#random;
    return `${r.pick(ONSETS)}${r.pick(MIDDLES)}${r.pick(CODAS)}`;
  }

  /** A name of the style the table's content usually has, unique in its table. */
  #name(table: CorpusTable): string {
    const r = this.#random;
    const proper = () => this.#properName();
    const make: Record<CorpusTable, () => string> = {
      spell: () =>
        r.pick([
          () => `${r.pick(ADJECTIVES)} ${r.pick(SPELL_NOUNS)}`,
          () => `${proper()}'s ${r.pick(ADJECTIVES)} ${r.pick(SPELL_NOUNS)}`,
          () => `${r.pick(SPELL_NOUNS)} of ${proper()}`,
          () => `${proper()}'s ${r.pick(SPELL_NOUNS)}`,
        ])(),
      item: () =>
        r.pick([
          () => `${r.pick(MATERIALS)} ${r.pick(ITEM_NOUNS)}`,
          () => `${r.pick(ADJECTIVES)} ${r.pick(MATERIALS)} ${r.pick(ITEM_NOUNS)}`,
          () => `${proper()}'s ${r.pick(ITEM_NOUNS)}`,
          () => `${r.pick(ITEM_NOUNS)} of the ${r.pick(ADJECTIVES)} ${r.pick(PLACES)}`,
        ])(),
      ability_block: () =>
        r.pick([
          () => `${r.pick(ADJECTIVES)} ${r.pick(FEAT_WORDS)}`,
          () => `${proper()} ${r.pick(FEAT_WORDS)}`,
          () => `${r.pick(ROLES)}'s ${r.pick(FEAT_WORDS)}`,
          () => `${r.pick(ADJECTIVES)} ${r.pick(ROLES)} ${r.pick(FEAT_WORDS)}`,
        ])(),
      creature: () =>
        r.pick([
          () => `${r.pick(ADJECTIVES)} ${r.pick(BEASTS)}`,
          () => `${proper()} ${r.pick(BEASTS)}`,
          () => `${proper()} the ${r.pick(ADJECTIVES)}`,
        ])(),
      hazard: () => `${r.pick(ADJECTIVES)} ${r.pick(HAZARD_NOUNS)}`,
      trait: () => r.chance(0.5) ? proper() : `${r.pick(ADJECTIVES)}${r.pick(CODAS)}`,
      class: () => `${proper()} ${r.pick(ROLES)}`,
      archetype: () => `${r.pick(ADJECTIVES)} ${r.pick(ROLES)}`,
      class_archetype: () => `${proper()} ${r.pick(ROLES)} Path`,
      versatile_heritage: () => `${proper()}blood`,
      ancestry: () => `${proper()}${r.pick(["kin", "folk", "born", ""])}`,
      background: () => `${r.pick(PLACES)} ${r.pick(ROLES)}`,
      language: () => `${proper()}${r.pick(["ic", "ish", "ese", "an", ""])}`,
    };
    const names = this.#names.get(table) ?? new Set();
    this.#names.set(table, names);
    let name = make[table]();
    for (let attempt = 1; attempt < 20 && names.has(name); attempt++) name = make[table]();
    // Dense corner of the name space: made unique with a proper name.
    while (names.has(name)) name = `${make[table]()} of ${proper()}`;
    names.add(name);
    return name;
  }

  /**
   * One description word: 60% common words (Zipf: a few in nearly every description), 37% the
   * topical tail (flatter: its most common words in about a third of descriptions, most words in
   * one or two percent), 3% a proper name.
   */
  #word(): string {
    const x = this.#random.next();
    if (x < 0.03) return this.#properName();
    return x < 0.63 ? this.#random.skewed(COMMON_WORDS) : this.#random.leaning(TOPICAL_TAIL);
  }

  /** `length` description words, the first capitalised. */
  #words(length: number): string {
    const text = Array.from({ length }, () => this.#word()).join(" ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  /** A description of 30 to 150 words in sentences of 6 to 16 words. */
  #description(): string {
    const target = this.#random.int(30, 150);
    const sentences: string[] = [];
    for (let count = 0; count < target;) {
      const length = Math.min(this.#random.int(6, 16), target - count);
      sentences.push(`${this.#words(length)}.`);
      count += length;
    }
    return sentences.join(" ");
  }

  /** A short sentence for fields such as `trigger` or `requirements`. */
  #phrase(min = 4, max = 10): string {
    return this.#words(this.#random.int(min, max));
  }

  #traitIndexes(): number[] {
    const r = this.#random;
    const n = r.int(0, 4);
    const chosen = new Set<number>();
    for (let i = 0; i < n; i++) chosen.add(r.skewed(POPULAR_TRAITS));
    return [...chosen];
  }

  #rarity(): string {
    const x = this.#random.next();
    return x < 0.75 ? "COMMON" : x < 0.92 ? "UNCOMMON" : x < 0.99 ? "RARE" : "UNIQUE";
  }

  #availability(): string {
    const x = this.#random.next();
    return x < 0.85 ? "STANDARD" : x < 0.95 ? "LIMITED" : "RESTRICTED";
  }

  #maybe<T>(p: number, value: () => T): T | null {
    return this.#random.chance(p) ? value() : null;
  }

  /** One row of the table (without `content_source_id`). */
  row(table: CorpusTable): CorpusRow {
    const r = this.#random;
    const base = { name: this.#name(table), rarity: this.#rarity() };
    switch (table) {
      case "trait":
        return { name: base.name, description: this.#description() };
      case "spell": {
        const kind = r.next();
        return {
          ...base,
          description: this.#description(),
          rank: r.chance(0.08) ? 0 : r.int(1, 10),
          traditions: r.some(["arcane", "divine", "occult", "primal"], r.int(1, 3)),
          availability: this.#availability(),
          cast: r.pick(["one-action", "two-actions", "three-actions", "reaction", "1 minute"]),
          range: this.#maybe(0.7, () => r.pick(["touch", "30 feet", "60 feet", "120 feet"])),
          area: this.#maybe(0.3, () => r.pick(SPELL_AREAS)),
          targets: this.#maybe(0.5, () => r.pick(SPELL_TARGETS)),
          duration: this.#maybe(0.5, () => r.pick(DURATIONS)),
          defense: this.#maybe(0.5, () => r.pick(["basic Reflex", "Will", "Fortitude", "AC"])),
          cost: this.#maybe(0.05, () => this.#phrase(3, 6)),
          trigger: this.#maybe(0.08, () => this.#phrase()),
          requirements: this.#maybe(0.05, () => this.#phrase()),
          traits: this.#traitIndexes(),
          meta_data: kind < 0.1 ? { focus: true } : kind < 0.15 ? { ritual: true } : {},
        };
      }
      case "item":
        return {
          ...base,
          description: this.#description(),
          level: r.int(0, 25),
          group: r.skewed(["GENERAL", "WEAPON", "ARMOR", "RUNE", "SHIELD", "UPGRADE", "MATERIAL"]),
          size: r.chance(0.9) ? "MEDIUM" : r.pick(["TINY", "SMALL", "LARGE", "HUGE"]),
          bulk: r.pick(["L", "1", "2", "3", null]),
          hands: r.pick(["1", "2", "1+", null]),
          usage: r.pick([...USAGES, null]),
          craft_requirements: this.#maybe(0.2, () => this.#phrase()),
          availability: this.#availability(),
          traits: this.#traitIndexes(),
          price: { gp: r.int(1, 20_000) },
        };
      case "ability_block":
        return {
          ...base,
          description: this.#description(),
          level: this.#maybe(0.95, () => r.int(1, 20)),
          type: r.skewed(ABILITY_TYPES),
          actions: r.pick([...ACTIONS, null, null]),
          availability: this.#availability(),
          prerequisites: r.some(PREREQUISITES, r.int(0, 2)),
          frequency: this.#maybe(0.15, () => r.pick(FREQUENCIES)),
          trigger: this.#maybe(0.15, () => this.#phrase()),
          requirements: this.#maybe(0.15, () => this.#phrase()),
          cost: this.#maybe(0.03, () => this.#phrase(2, 5)),
          access: this.#maybe(0.05, () => `Member of the ${this.#properName()} ${r.pick(ROLES)}s`),
          special: this.#maybe(0.1, () => this.#phrase(8, 20)),
          traits: this.#traitIndexes(),
        };
      case "creature":
      case "hazard":
        return { ...base, level: r.int(-1, 25) };
      case "language":
        return { ...base, description: this.#description(), availability: this.#availability() };
      default:
        return { ...base, description: this.#description() };
    }
  }
}

/**
 * Generates and inserts `counts` rows of each table, traits first (content rows refer to them),
 * each in the content source `sourceOf` gives, with triggers off (they only bump source
 * timestamps). Returns each table's rows with the ids they received, in generation order.
 */
export async function loadCorpus(
  db: postgres.Sql,
  generator: CorpusGenerator,
  counts: Partial<Record<CorpusTable, number>>,
  sourceOf: () => number,
): Promise<Map<CorpusTable, { row: CorpusRow; id: number }[]>> {
  await db`set session_replication_role = replica`;
  const loaded = new Map<CorpusTable, { row: CorpusRow; id: number }[]>();
  let traitIds: number[] = [];
  const tables = Object.keys(counts) as CorpusTable[];
  for (const table of ["trait" as const, ...tables.filter((t) => t !== "trait")]) {
    const rows = Array.from({ length: counts[table] ?? 0 }, (): CorpusRow => {
      const row = generator.row(table);
      // Trait positions become the ids the trait rows received.
      const traits = Array.isArray(row.traits)
        ? { traits: (row.traits as number[]).map((i) => traitIds[i % traitIds.length]) }
        : {};
      return { ...row, ...traits, content_source_id: sourceOf() };
    });
    const ids: number[] = [];
    const columns = Object.keys(rows[0] ?? {}).map((c) => `"${c}"`).join(", ");
    for (let i = 0; i < rows.length; i += 2_000) {
      const inserted = await db.unsafe(
        `insert into public."${table}" (${columns})
         select ${columns} from jsonb_populate_recordset(null::public."${table}", $1::jsonb)
         returning id`,
        [rows.slice(i, i + 2_000) as never],
      );
      ids.push(...inserted.map((r) => Number(r.id)));
    }
    if (table === "trait") traitIds = ids;
    loaded.set(table, rows.map((row, i) => ({ row, id: ids[i]! })));
  }
  await db`reset session_replication_role`;
  return loaded;
}
