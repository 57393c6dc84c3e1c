/**
 * Rejects regular expressions that can backtrack catastrophically before they run: a JavaScript
 * regex cannot be interrupted once it starts, so the guard is static. Refused: a quantified group
 * that itself contains a quantifier (`(a+)+`, `(\w*\s?)*`), a quantified group with alternatives
 * (`(a|ab)*`), and backreferences. Returns why the pattern was refused, or undefined if it is safe.
 */
export function unsafeRegexReason(pattern: string): string | undefined {
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences are not supported'
  // Stack of open groups: whether each contains a quantifier or an alternation.
  const stack: Array<{ quantified: boolean; alternation: boolean }> = []
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      i++
      continue
    }
    if (inClass) {
      if (c === ']') inClass = false
      continue
    }
    if (c === '[') inClass = true
    else if (c === '(') stack.push({ quantified: false, alternation: false })
    else if (c === '|' && stack.length > 0) stack[stack.length - 1].alternation = true
    else if (c === ')') {
      const group = stack.pop()
      if (!group) continue
      const next = pattern[i + 1]
      const repeated = next === '*' || next === '+' || (next === '{' && /^\{\d*,\d*\}|^\{\d{2,}\}/.test(pattern.slice(i + 1)))
      if (repeated && group.quantified) return 'a repeated group contains another repetition (nested quantifiers such as (a+)+)'
      if (repeated && group.alternation) return 'a repeated group contains alternatives (such as (a|ab)*)'
      if (stack.length > 0 && (group.quantified || repeated)) stack[stack.length - 1].quantified = true
      if (stack.length > 0 && group.alternation) stack[stack.length - 1].alternation ||= repeated
    } else if ((c === '*' || c === '+' || c === '{') && stack.length > 0) stack[stack.length - 1].quantified = true
  }
  return undefined
}
