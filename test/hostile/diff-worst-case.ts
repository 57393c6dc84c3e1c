/**
 * The diff that froze a Node host (issue 27, case 1): one file written twice, 8,000 lines each time,
 * every line different (~47 KB). A Myers line diff of it walks 16,000 edits: tens of seconds on the
 * event loop with no bound. Shared by the library, Node host, Worker and bench cases.
 */
export const WORST_CASE_LINES = 8000

/** The two versions of the file: `before` and `after` share no line. */
export function worstCaseTexts(lines = WORST_CASE_LINES): { before: string; after: string } {
  const text = (side: string) => Array.from({ length: lines }, (_, i) => `${side} ${i}`).join('\n') + '\n'
  return { before: text('a'), after: text('b') }
}
