/** A unified diff, a line per row: additions, removals and hunk headers marked (and coloured by the stylesheet). */
export function DiffView({ patch }: { patch: string }) {
  // The two file-name lines of createTwoFilesPatch say nothing the entry does not.
  const lines = patch
    .split('\n')
    .filter(l => !l.startsWith('Index:') && !l.startsWith('====') && !l.startsWith('---') && !l.startsWith('+++'))
  return (
    <pre class="diff" data-testid="diff">
      {lines.map((l, i) => (
        <span key={i} class={l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : 'ctx'}>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  )
}
