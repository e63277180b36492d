// Mutations of the rules that keep other systems' text data: the server version that names a
// cache directory, the clear-text token warning, the fenced log lines and the error annotation.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const FOREIGN_TEXT_MODULES: MutatedModule[] = [
  {
    name: 'server-version',
    tests: ['test/coder/server-version.test.ts'],
    mutations: mutationsOf('src/coder/server-version.ts', [
      [
        'RELEASE_VERSION',
        '(?:[-+][0-9A-Za-z.+-]*)?$/',
        '(?:[-+].*)?$/',
        'any suffix, slashes included'
      ],
      [
        'RELEASE_VERSION',
        'const RELEASE_VERSION = /^v?',
        'const RELEASE_VERSION = /v?',
        'not anchored at the start'
      ],
      [
        'serverVersionProblem',
        'version.length <= MAX_SERVER_VERSION_LENGTH && ',
        '',
        'no length bound'
      ]
    ])
  },
  {
    name: 'cleartext',
    tests: ['test/coder/cleartext.test.ts'],
    mutations: mutationsOf('src/coder/cleartext.ts', [
      [
        'isLoopbackHost',
        "return host.startsWith('127.')",
        "return host.startsWith('12')",
        '128.0.0.1 is loopback'
      ],
      [
        'isLoopbackHost',
        "if (host === 'localhost') return true",
        "if (host.endsWith('localhost')) return true",
        'evil-localhost'
      ],
      ['cleartextTokenWarning', "url.protocol !== 'http:' || ", '', 'https warns too']
    ])
  },
  {
    name: 'log',
    tests: ['test/unit/log/log.test.ts'],
    mutations: mutationsOf('src/log/log.ts', [
      [
        'COMMAND_LIKE',
        '/^\\s*::|##\\[/m',
        '/^::|^##\\[/m',
        'leading blanks and an inner ##[ not fenced'
      ],
      ['COMMAND_LIKE', '/^\\s*::|##\\[/m', '/^\\s*::|##\\[/', 'only the first line is looked at'],
      [
        'safeLogLines',
        'if (!looksLikeCommand(text)) return [text]',
        'return [text]',
        'nothing is fenced'
      ]
    ])
  },
  {
    name: 'annotation',
    tests: ['test/unit/report/annotation.test.ts'],
    mutations: mutationsOf('src/report/annotation.ts', [
      [
        'flat',
        "text.replace(/\\s*[\\r\\n]+\\s*/g, ' ')",
        'text',
        'foreign newlines make new lines'
      ],
      ['lines', '...problems.slice(0, problemsShown),', '', 'the reasons are left out'],
      [
        'fitBytes',
        'shown.length > 1 && Buffer.byteLength(render())',
        'shown.length > 1 && render().length',
        'bound in characters, not bytes'
      ],
      [
        'problemsShown',
        'MAX_REASON_LINES - adviceShown)',
        'MAX_REASON_LINES)',
        'more than ten reason lines'
      ]
    ])
  }
]
