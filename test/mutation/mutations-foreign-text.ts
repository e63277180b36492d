// Mutations of the rules that keep other systems' text data: the server version that names a
// cache directory, the clear-text token warning, the fenced log lines and the error annotation.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const FOREIGN_TEXT_MODULES: MutatedModule[] = [
  {
    name: 'server-version',
    tests: ['test/coder/server-version.test.ts'],
    mutations: mutationsOf('src/coder/server-version.ts', [
      ['(?:[-+][0-9A-Za-z.+-]*)?$/', '(?:[-+].*)?$/', 'any suffix, slashes included'],
      ['const RELEASE_VERSION = /^v?', 'const RELEASE_VERSION = /v?', 'not anchored at the start'],
      ['version.length <= MAX_SERVER_VERSION_LENGTH && ', '', 'no length bound']
    ])
  },
  {
    name: 'cleartext',
    tests: ['test/coder/cleartext.test.ts'],
    mutations: mutationsOf('src/coder/cleartext.ts', [
      ["return host.startsWith('127.')", "return host.startsWith('12')", '128.0.0.1 is loopback'],
      [
        "if (host === 'localhost') return true",
        "if (host.endsWith('localhost')) return true",
        'evil-localhost'
      ],
      ["url.protocol !== 'http:' || ", '', 'https warns too']
    ])
  },
  {
    name: 'log',
    tests: ['test/unit/log.test.ts'],
    mutations: mutationsOf('src/log.ts', [
      ['/^\\s*::|##\\[/m', '/^::|^##\\[/m', 'leading blanks and an inner ##[ not fenced'],
      ['/^\\s*::|##\\[/m', '/^\\s*::|##\\[/', 'only the first line is looked at'],
      ['if (!looksLikeCommand(text)) return [text]', 'return [text]', 'nothing is fenced']
    ])
  },
  {
    name: 'annotation',
    tests: ['test/unit/report/annotation.test.ts'],
    mutations: mutationsOf('src/report/annotation.ts', [
      ["text.replace(/\\s*[\\r\\n]+\\s*/g, ' ')", 'text', 'foreign newlines make new lines'],
      ['...problems.slice(0, problemsShown),', '', 'the reasons are left out'],
      [
        'shown.length > 1 && Buffer.byteLength(render())',
        'shown.length > 1 && render().length',
        'bound in characters, not bytes'
      ],
      ['MAX_REASON_LINES - adviceShown)', 'MAX_REASON_LINES)', 'more than ten reason lines']
    ])
  }
]
