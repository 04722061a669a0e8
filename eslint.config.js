// ESLint (flat config): the JS linter and, through @stylistic's fixable rules, the
// formatter. `npm run lint` checks, `npm run format` fixes. The style rules spell out what
// the code already does (2 spaces, single quotes, semicolons, trailing commas on
// multi-line lists); line length is left to review.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';

export default [
  { ignores: ['build/**', 'dist/**', 'node_modules/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      // runtime/ runs in Node, pages and Workers alike; the rest in one of them.
      globals: { ...globals.node, ...globals.browser, ...globals.worker },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      // Errors are rewrapped on purpose into one user-facing line that already quotes the
      // cause's message (the CLI prints messages, not chains).
      'preserve-caught-error': 'off',
      // Nested ternaries are laid out by hand, one condition a line.
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['ConditionalExpression', 'ConditionalExpression *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/array-bracket-spacing': ['error', 'never'],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-before-blocks': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
    },
  },
];
