// `npm run lint`: a small rule set on top of the formatter (prettier). The type checks are tsc's job
// (`npm test` runs them); these rules catch what tsc allows.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-demo/**',
      'node_modules/**',
      '.tmp/**',
      '.wrangler/**',
      'test-results/**',
      '**/*.d.ts',
      'scripts/typescript-loader.mjs',
      'test/consumers/**/node_modules/**',
      'test/consumers/**/dist/**',
    ],
  },
  {
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      // Tests and scripts lean on `any` at times; the library's public surface must not (below).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-undef': 'off', // tsc checks names; eslint cannot see the runtimes' globals
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-empty-object-type': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-control-regex': 'off', // path and name checks refuse control characters on purpose
      // A variable a closure reads before its one assignment (a timer the callback clears) stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Ambient declarations of the wasm modules are referenced on purpose (no import can name them).
      '@typescript-eslint/triple-slash-reference': 'off',
      // Scripts and tests rethrow with a message for a person; the library keeps the cause (below).
      'preserve-caught-error': 'off',
    },
  },
  {
    // The library: no explicit `any` (its types are what users see), and long functions are a smell.
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'preserve-caught-error': 'error',
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The consumer type checks hold expressions whose only job is to be type-checked (@ts-expect-error).
    files: ['test/consumers/types/**'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-unused-vars': 'off' },
  },
)
