// Runs just-bash's own tests (its release's source, unpacked by README.md's steps into
// .tmp/just-bash/packages/just-bash) over agent-vfs's WorkspaceFs; JB_REAL=1 runs them as released.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = fileURLToPath(new URL('../../../.tmp/just-bash/packages/just-bash', import.meta.url))
const suites =
  'find grep ls cp mv rm rmdir mkdir touch cat head tail wc sed stat du tree tee ln chmod readlink xargs md5sum split file diff'
const include = [
  ...suites.split(' ').map(c => `src/commands/${c}/**/*.test.ts`),
  'src/commands/utf8-*.test.ts',
  'src/commands/fs-identity.security.test.ts',
  'src/commands/filesystem-traversal.security.test.ts',
  'src/interpreter/redirection*.test.ts',
  'src/encoding*.test.ts',
]

export default defineConfig({
  root,
  resolve: {
    alias: [
      { find: /^just-bash-source\/Bash$/, replacement: `${root}/src/Bash.ts` },
      { find: /^agent-vfs\/internal$/, replacement: `${here}../../../src/internal.ts` },
      { find: /^agent-vfs$/, replacement: `${here}../../../src/index.ts` },
      // The tests import just-bash's Bash by relative path; ours takes its place.
      ...(process.env.JB_REAL ? [] : [{ find: /^(?:\.\.?\/)+Bash\.js$/, replacement: `${here}bash-over-workspace.ts` }]),
    ],
  },
  test: {
    globals: true,
    include,
    setupFiles: [`${root}/src/vitest-setup.ts`],
    pool: 'forks',
    testTimeout: 30_000,
  },
})
