/**
 * ESLint for the library's code (src/ and adapters/), with typescript-eslint's type-checked
 * rules; test/lint.test.ts fails on any error, so this runs in CI with the tests. Tests, examples
 * and benches are type-checked by tsc but not linted.
 */
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    files: ['src/**/*.ts', 'adapters/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore marks a binding left unused on purpose: a parameter a signature needs,
      // or a field taken out of an object by destructuring so that the rest goes on without it.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // The SQL builder's `Where` writes itself into statements as its clauses (toString), with
      // its parameters kept apart: the one object besides the rule's defaults allowed in a template.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { name: ['Error', 'URL', 'URLSearchParams'], from: 'lib' },
            { name: 'Where', from: 'file', path: 'src/storage/sql/db.ts' },
          ],
        },
      ],
      // The code's own `eslint-disable no-control-regex` comments name it: regexes that match
      // control characters on purpose say so.
      'no-control-regex': 'error',
      // `interface X extends Storage {}` merged into a class is how the classes whose operations
      // defineOps writes onto the prototype declare them; an empty interface is otherwise refused.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Cross-cutting work on storage goes through the pipeline's typed hooks (storage/pipeline.ts,
      // withStorageHooks for a host or a test): a Proxy picks which methods it sees, and a method
      // it forgets passes by unseen.
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Proxy']", message: 'Use a storage hook (withStorageHooks), not a Proxy.' },
      ],
    },
  },
  {
    // The shipped HTTP suites read response bodies as parsed JSON (`Res.body: any`, as a test of a
    // wire format does): reading, calling into, passing on and returning those bodies is what they
    // are for, and typing every expected body would restate the wire format in types the suites
    // would then trust instead of checking.
    files: ['src/testing/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
)
