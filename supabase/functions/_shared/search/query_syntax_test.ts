import { deepStrictEqual, equal } from "node:assert/strict";
import { escapeLike, parseContainsFilter, parseSimpleQuery, splitTerms } from "./query_syntax.ts";

Deno.test("splitTerms() recognises phrases, exclusions and wildcards", () => {
  deepStrictEqual(
    splitTerms(`fire "cone of  cold" -ice -"frost bite" fire* a-b`).map((t) => [
      t.text,
      t.excluded,
      t.phrase,
      t.wildcard,
    ]),
    [
      ["fire", false, false, false],
      ["cone of cold", false, true, false],
      ["ice", true, false, false],
      ["frost bite", true, true, false],
      ["fire", false, false, true],
      ["a-b", false, false, false],
    ],
  );
});

Deno.test("splitTerms() takes an unclosed quote to the end and skips empty terms", () => {
  deepStrictEqual(splitTerms(`"open phrase`).map((t) => t.text), ["open phrase"]);
  deepStrictEqual(splitTerms(`"" * - --`).map((t) => [t.text, t.excluded]), [
    ["-", false],
    ["-", true],
  ]);
});

Deno.test("parseSimpleQuery() builds tsquery text from quoted letters and digits only", () => {
  deepStrictEqual(parseSimpleQuery(`Fireball "cone of cold" -ice scorch*`), {
    tsquery: `'fireball' & ('cone' <-> 'of' <-> 'cold') & 'scorch':*`,
    excluded: `'ice'`,
    nameText: "Fireball cone of cold scorch",
  });
  deepStrictEqual(parseSimpleQuery(`'); drop table x; -- \\ :* & | !`), {
    tsquery: `'drop' & 'table' & 'x'`,
    excluded: "",
    nameText: `'); drop table x; \\ : & | !`,
  });
  equal(parseSimpleQuery("Vael’s Ward").nameText, "Vael's Ward");
  equal(parseSimpleQuery("fire-ball").tsquery, `('fire' <-> 'ball')`);
});

Deno.test("escapeLike() makes %, _ and \\ literal", () => {
  equal(escapeLike(`100%_\\x`), `100\\%\\_\\\\x`);
});

Deno.test("parseContainsFilter() follows the advanced text syntax", () => {
  deepStrictEqual(parseContainsFilter(`fire "cone of" ic*e -ward 5%`), {
    all: ["%fire%", "%5\\%%"],
    any: ["%cone of%", "ic%e"],
    none: ["%ward%"],
  });
  // A repeated term is one pattern: each is a pass over the rows the index cannot rule out.
  deepStrictEqual(parseContainsFilter(`d d d "d" "d" -x -x`), {
    all: ["%d%"],
    any: ["%d%"],
    none: ["%x%"],
  });
  equal(parseContainsFilter("   "), null);
  equal(parseContainsFilter("*"), null);
});
