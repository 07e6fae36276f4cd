// The two search syntaxes of search-data, parsed in TypeScript into values that are passed to SQL
// as parameters only. Nothing a caller types ever becomes SQL text or tsquery syntax of its own:
// words are reduced to runs of letters and digits before they are quoted into a tsquery, and
// LIKE wildcards are escaped.

/** One whitespace-separated term of a query, with its syntax recognised. */
interface Term {
  /** The term's text without quotes, the leading `-` or `*` wildcards. */
  text: string;
  /** The text as written minus the leading `-` and the quotes (wildcards kept). */
  raw: string;
  excluded: boolean;
  /** Written in double quotes. */
  phrase: boolean;
  /** Contains `*`. */
  wildcard: boolean;
}

/** Splits a query into terms: `"quoted phrases"`, `-excluded` terms (or `-"phrases"`), words. */
export function splitTerms(query: string): Term[] {
  const terms: Term[] = [];
  const text = query.replaceAll("’", "'").replaceAll("“", '"').replaceAll("”", '"');
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    if (i >= text.length) break;
    let excluded = false;
    if (text[i] === "-" && i + 1 < text.length && !/\s/.test(text[i + 1] ?? "")) {
      excluded = true;
      i++;
    }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      const stop = end === -1 ? text.length : end;
      const inner = text.slice(i + 1, stop).trim().replace(/\s+/g, " ");
      i = stop + 1;
      if (inner !== "") {
        terms.push({
          text: inner.replaceAll("*", ""),
          raw: inner,
          excluded,
          phrase: true,
          wildcard: false,
        });
      }
      continue;
    }
    let end = i;
    while (end < text.length && !/\s/.test(text[end] ?? "") && text[end] !== '"') end++;
    const word = text.slice(i, end);
    i = end;
    const bare = word.replaceAll("*", "");
    if (bare === "") continue;
    terms.push({ text: bare, raw: word, excluded, phrase: false, wildcard: word.includes("*") });
  }
  return terms;
}

/** Runs of letters and digits: the only parts of a word that reach a tsquery. */
function lexemes(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A tsquery operand for a term: one quoted lexeme, or a phrase of them; null when none remain. */
function tsOperand(term: Term, prefix: boolean): string | null {
  const parts = lexemes(term.text).map((lexeme) => `'${lexeme}'`);
  if (parts.length === 0) return null;
  if (prefix) parts[parts.length - 1] += ":*";
  return parts.length === 1 ? parts[0] ?? null : `(${parts.join(" <-> ")})`;
}

/** Simple mode's query, ready to be bound as parameters. */
export interface SimpleQuery {
  /** `to_tsquery('english', …)` input for the terms that must all match; "" when none. */
  tsquery: string;
  /** `to_tsquery('english', …)` input matching any excluded term; "" when none. */
  excluded: string;
  /** What names are compared with (exact, prefix, similarity): the wanted terms, syntax removed. */
  nameText: string;
}

/**
 * Parses simple-mode text: words must all match (stemmed, in name or description), `"phrases"`
 * match as phrases, `word*` matches words starting with `word`, `-word` excludes rows containing
 * it. The same wanted terms, joined, are what names are fuzzily compared with.
 */
export function parseSimpleQuery(text: string): SimpleQuery {
  const terms = splitTerms(text);
  const wanted = terms.filter((t) => !t.excluded);
  const unwanted = terms.filter((t) => t.excluded);
  const positive = wanted.map((t) => tsOperand(t, t.wildcard && t.raw.endsWith("*")))
    .filter((o): o is string => o !== null);
  const negative = unwanted.map((t) => tsOperand(t, false)).filter((o): o is string => o !== null);
  return {
    tsquery: positive.join(" & "),
    excluded: negative.join(" | "),
    nameText: wanted.map((t) => t.text).join(" ").trim(),
  };
}

/** Escapes LIKE's wildcards and its escape character, so the text matches only itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** An advanced-mode text filter as ILIKE patterns (all already escaped). */
export interface ContainsFilter {
  /** Every pattern must match. */
  all: string[];
  /** At least one must match, when there are any. */
  any: string[];
  /** None may match. */
  none: string[];
}

/**
 * Parses an advanced-mode text filter (section 9): plain words must each occur (substring, any
 * case); `"phrases"` (substring) and words with `*` (a wildcard for any run of characters, the
 * pattern anchored at both ends of the value) form one group of which at least one must match;
 * `-term` excludes rows containing it. Returns null when nothing is left to filter on.
 */
export function parseContainsFilter(text: string): ContainsFilter | null {
  const filter: ContainsFilter = { all: [], any: [], none: [] };
  for (const term of splitTerms(text)) {
    const contains = `%${escapeLike(term.text)}%`;
    if (term.excluded) {
      filter.none.push(contains);
    } else if (term.phrase) {
      filter.any.push(contains);
    } else if (term.wildcard) {
      filter.any.push(term.raw.split("*").map(escapeLike).join("%"));
    } else {
      filter.all.push(contains);
    }
  }
  const empty = filter.all.length + filter.any.length + filter.none.length === 0;
  // A pattern repeated is another pass over every row it cannot narrow down, to the same end.
  const once = (patterns: string[]) => [...new Set(patterns)];
  return empty ? null : { all: once(filter.all), any: once(filter.any), none: once(filter.none) };
}
