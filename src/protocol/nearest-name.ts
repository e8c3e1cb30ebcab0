/**
 * "Did you mean": the known name nearest to a misspelt one, for config errors that name the
 * fix ("/hosts/0/timeZone: unknown setting; did you mean `timezone`?").
 *
 * The edit distance is written here: the only implementation in node_modules comes with a
 * development tool (absent from a production install), and a dependency for a dozen lines of
 * a textbook algorithm is not worth its upkeep.
 */

/** Levenshtein distance: insertions, deletions and substitutions, each 1 (two rows of the table). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Case, `_` and `-` do not count: `timeZone`, `time_zone` and `timezone` are one name. */
const folded = (name: string): string => name.toLowerCase().replace(/[_-]/g, "");

/**
 * The known name nearest `name`, when one is near enough to be a slip (at most a third of its
 * letters off, and at least one), or undefined.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const target = folded(name);
  const limit = Math.max(1, Math.floor(target.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    if (candidate === name) continue;
    const distance = editDistance(target, folded(candidate));
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

/** "; did you mean `x`?" for an unknown name, or "" when no known name is near it. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearestName(name, known);
  return near === undefined ? "" : `; did you mean \`${near}\`?`;
}
