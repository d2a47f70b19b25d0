// Lint: layering rules (which runtime each folder may import) plus typescript-eslint's recommended set.
// The layering mirrors the tsconfig split so a violation fails both `npm run typecheck` and `npm run lint`.
import tseslint from 'typescript-eslint';

const nodeModules = ['fs', 'path', 'os', 'child_process', 'worker_threads', 'net', 'http', 'crypto', 'stream', 'url', 'util', 'zlib', 'events', 'module'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', 'ci-reports/**', '**/*.d.ts', 'test/dotnet/**/bin/**', 'test/dotnet/**/obj/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-throw-literal': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: nodeModules.map((name) => ({ name, message: 'shared/ is pure: no Node imports (take a ByteSource instead).' })),
        patterns: [
          { group: ['node:*'], message: 'shared/ is pure: no Node imports (take a ByteSource instead).' },
          { group: ['electron', 'electron/*', 'vue', 'pinia', 'ag-grid-*'], message: 'shared/ is pure: no Electron or UI imports.' },
          { group: ['**/electron/**', '**/renderer/**'], message: 'shared/ may import only shared/.' },
        ],
      }],
      'no-restricted-globals': ['error', 'process', 'window', 'document', 'Buffer', 'require'],
    },
  },
  {
    // .vue files are not linted (vue-eslint-parser is not a dependency); vue-tsc type-checks them
    // and the renderer tsconfig (no Node types) still rejects node imports there.
    files: ['renderer/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: nodeModules.map((name) => ({ name, message: 'The renderer has no Node access.' })),
        patterns: [
          { group: ['node:*'], message: 'The renderer has no Node access.' },
          { group: ['electron', 'electron/*', '**/electron/**'], message: 'The renderer talks to main only through window.heapscope (preload).' },
        ],
      }],
    },
  },
);
