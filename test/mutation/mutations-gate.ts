// Mutations of the gate's own decisions: integrity, verdict, promotion, names, advice, secrets.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const GATE_MODULES: MutatedModule[] = [
  {
    name: 'integrity',
    tests: ['test/unit/verdict/integrity.test.ts', 'test/unit/objects/manifest.test.ts'],
    mutations: mutationsOf('src/verdict/integrity.ts', [
      [
        'integrityProblems',
        'if (!pushed.id || !pushed.name)',
        'if (!pushed.id && !pushed.name)',
        'half-known push'
      ],
      [
        'integrityProblems',
        'status.templateVersionID !== pushed.id',
        'status.templateVersionID === pushed.id',
        'ID =='
      ],
      [
        'integrityProblems',
        'if (status.templateVersionName !== pushed.name) {',
        'if (status.templateVersionName === undefined) {',
        'only a missing version name counts'
      ],
      [
        'problems',
        'const problems = specDifferences(committedSpec, test.spec)',
        'const problems: string[] = []',
        'the spec is not compared'
      ],
      [
        'integrityProblems',
        "problems.push('the pushed version is unknown, so nothing can prove it')",
        '',
        'an unknown push proves itself'
      ]
    ])
  },
  {
    name: 'verdict',
    tests: ['test/unit/verdict/verdict.test.ts'],
    mutations: mutationsOf('src/verdict/verdict.ts', [
      [
        'verdictOf',
        "typeof status.observedGeneration !== 'number' ||",
        "typeof status.observedGeneration !== 'number' &&",
        'a stale generation passes'
      ],
      [
        'isReadyAtGeneration',
        "c.status === 'True' &&",
        "c.status !== 'False' &&",
        'Ready=Unknown passes'
      ],
      ['isReadyAtGeneration', "c.type === 'Ready' &&", '', 'any condition True passes'],
      [
        'isReadyAtGeneration',
        'c.observedGeneration === undefined || c.observedGeneration === generation',
        'c.observedGeneration === undefined || c.observedGeneration !== generation',
        'Ready of another generation'
      ],
      [
        'isReadyAtGeneration',
        'if (!Array.isArray(conditions)) return false',
        'if (!Array.isArray(conditions)) return true',
        'Succeeded without conditions passes'
      ],
      ['verdictOf', "    case 'Running':\n", '', 'Running is an unknown phase']
    ])
  },
  {
    name: 'promotion-guard',
    tests: ['test/unit/promotion/promotion-guard.test.ts'],
    mutations: mutationsOf('src/promotion/guard.ts', [
      [
        'guardPromotion',
        'if (active.id === ours.id) return',
        'if (active.id === ours.id && starting !== null) return',
        'ours active in a new template is refused'
      ],
      [
        'guardPromotion',
        'starting === null || active.id !== starting.id',
        'starting !== null && active.id !== starting.id',
        'a new template counts as unchanged'
      ],
      ['isOlder', 'return a < o', 'return a <= o', 'the same instant counts as older'],
      [
        'isOlder',
        'if (Number.isNaN(a) || Number.isNaN(o)) return false',
        'if (Number.isNaN(a) || Number.isNaN(o)) return true',
        'unknown times count as older'
      ],
      [
        'guardPromotion',
        '!input.allowRollback && !isOlder(active, ours)',
        '!input.allowRollback || !isOlder(active, ours)',
        'allow-rollback ignored'
      ],
      [
        'message',
        'active.createdAt && ours.createdAt ?',
        'active.createdAt || ours.createdAt ?',
        'the refusal shows a missing time'
      ]
    ])
  },
  {
    name: 'promotion',
    tests: ['test/unit/promotion/promotion.test.ts'],
    mutations: mutationsOf('src/promotion/answer.ts', [
      [
        'decideAnswer',
        "return reason === 'TooManyRequests' ? retry : reRead(true)",
        'return reason !== null ? retry : reRead(true)',
        'any 429 Status is retried blindly'
      ],
      [
        'statusReason',
        "if (status?.kind !== 'Status' || status.code !== answer.httpStatus) return null",
        "if (status?.kind !== 'Status') return null",
        'a Status of another code counts'
      ],
      [
        'form',
        'f.messages.includes(text)',
        'f.messages.some((m) => text.includes(m))',
        'a documented text inside another counts'
      ],
      [
        'decideAnswer',
        "return reRead(known === 'nothing-changed')",
        "return reRead(known !== 'not-attempted')",
        'a superseded answer retries'
      ],
      [
        'decideCreated',
        "if (request === 'promote' && status.activeVersionID !== versionID) {",
        "if (request === 'dry-run' && status.activeVersionID !== versionID) {",
        'the active version of a promotion is not checked'
      ],
      [
        'result',
        "previousActiveVersionID === versionID || mode === 'dry-run' ? 'AlreadyActive' : 'Promoted'",
        "previousActiveVersionID === versionID ? 'AlreadyActive' : 'Promoted'",
        'a dry run re-read reports Promoted'
      ],
      [
        'decideAfterReread',
        'activeVersionID === previousActiveVersionID &&\n    after.retryIfUnchanged',
        'activeVersionID === previousActiveVersionID',
        'retries over a superseded promotion'
      ]
    ])
  },
  {
    name: 'promote-step',
    tests: ['test/unit/promotion/promotion.test.ts'],
    mutations: mutationsOf('src/promotion/retry.ts', [
      [
        'runPromotion',
        'if (attempt > 1) {\n        const before',
        'if (attempt < 1) {\n        const before',
        'a re-send without the guard read again'
      ],
      [
        'guardBeforeResend',
        "if (decision.kind === 'refused') {",
        "if (decision.kind === 'refused' && decision.why === 'rollback') {",
        'a change made during the pause is overwritten'
      ],
      [
        'applied',
        "const applied = outcomeUnknown && input.request === 'promote'",
        "const applied = input.request === 'promote'",
        'ours activated by someone else counts as our promotion'
      ]
    ])
  },
  {
    name: 'version-identity',
    tests: ['test/unit/coder/version-identity.test.ts', 'test/unit/settings/inputs.test.ts'],
    mutations: mutationsOf('src/coder/version-identity.ts', [
      [
        'hasVersionMarker',
        'if (commitSha === undefined || commitSha.length < MARKER_SHA_LENGTH) return false',
        'if (commitSha === undefined || commitSha.length < MARKER_SHA_LENGTH) return true',
        'a short sha owns every version'
      ],
      [
        'MARKER_PATTERN',
        'const MARKER_PATTERN = /\\(commit ([0-9a-f]{12})(?:, [^()\\s]+)?\\)$/',
        'const MARKER_PATTERN = /\\(commit ([0-9a-f]{12})(?:, [^()\\s]+)?\\)/',
        'a marker anywhere in the message counts'
      ],
      [
        'found',
        'MARKER_PATTERN.exec(message.trimEnd())',
        'MARKER_PATTERN.exec(message)',
        'trailing blanks'
      ],
      [
        'hasVersionMarker',
        'found?.[1] === commitSha.slice(0, MARKER_SHA_LENGTH).toLowerCase()',
        'found?.[1] === commitSha.slice(0, MARKER_SHA_LENGTH)',
        'an upper-case sha never matches'
      ],
      [
        'MARKER_PATTERN',
        'const MARKER_PATTERN = /\\(commit ([0-9a-f]{12})(?:, [^()\\s]+)?\\)$/',
        'const MARKER_PATTERN = /\\(commit ([0-9a-f]{12})(?:, [^()]+)?\\)$/',
        'any words after the sha count'
      ]
    ])
  },
  {
    name: 'naming',
    tests: ['test/unit/settings/naming.test.ts'],
    mutations: mutationsOf('src/settings/naming.ts', [
      [
        'coderNameProblem',
        'if (name.length > CODER_NAME_MAX)',
        'if (name.length >= CODER_NAME_MAX)',
        '32 characters refused'
      ],
      [
        'deriveVersion',
        "if (pr && context.eventName.startsWith('pull_request'))",
        'if (pr)',
        'a push with a pull request payload is named as a pull request'
      ],
      [
        'head',
        'const head = sanitiseVersion(branch, VERSION_NAME_MAX - suffix.length)',
        'const head = sanitiseVersion(branch)',
        'a long branch pushes the sha out'
      ],
      ['cleaned', '(run) => run[0] as string', '(run) => run', 'separator runs kept'],
      [
        'testNameFor',
        'if (mapped.length <= DNS1123_LABEL_MAX) return mapped',
        'if (mapped.length < DNS1123_LABEL_MAX) return mapped',
        'a 63-character test name is cut'
      ],
      [
        'dnsSubdomainProblem',
        'if (name.length > DNS1123_SUBDOMAIN_MAX) {',
        'if (name.length >= DNS1123_SUBDOMAIN_MAX) {',
        '253 characters refused'
      ]
    ])
  },
  {
    // Not a decision table: the "never shows a secret value" tests of inputs.test.ts.
    name: 'input secrets',
    tests: ['test/unit/settings/inputs.test.ts'],
    mutations: [
      ...mutationsOf('src/settings/rules.ts', [
        ['hidden', '      options.hideValue ||\n', '', 'a URL with a password is shown'],
        [
          'message',
          'message: `Input "${input}" line ${index + 1} is invalid: ${problem}.`',
          'message: `Input "${input}" line ${index + 1} (${line}) is invalid: ${problem}.`',
          'a NAME=VALUE line is shown'
        ],
        [
          'urlProblem',
          'if (userInfoOf(text) !== null) return CREDENTIALS_RULE',
          '',
          'credentials are found only where WHATWG parses the URL'
        ]
      ]),
      ...mutationsOf('src/steps/inputs.ts', [
        [
          'validateInputs',
          "  urlCredentials(input.read('coder-url')).forEach(input.mask)\n",
          '',
          'the password of coder-url is not masked'
        ],
        [
          'validateInputs',
          'if (value) input.mask(value)',
          "if (value && name !== 'gitops-token') input.mask(value)",
          'gitops-token is not masked'
        ]
      ]),
      ...mutationsOf('src/settings/parse.ts', [
        [
          'parseCoder',
          "{ hideValue: problem.includes('credentials') }",
          '{ hideValue: false }',
          'the credentials rule shows the URL'
        ]
      ])
    ]
  },
  {
    name: 'wait-advice',
    tests: ['test/unit/verdict/wait-advice.test.ts'],
    mutations: mutationsOf('src/verdict/wait-advice.ts', [
      [
        'adviceForFailure',
        "replace('{workspace}', () => where)",
        "replace('{workspace}', () => 'the test workspace')",
        'the workspace name is left out'
      ],
      [
        'advice',
        "FAILURE_ADVICE[reason]! : ''",
        "FAILURE_ADVICE[reason]! : 'Read the message.'",
        'an unknown reason gets advice'
      ],
      [
        'FAILURE_ADVICE',
        '  BuildCanceled:',
        '  BuildCancelled:',
        'a reason spelt otherwise than Coder'
      ],
      [
        'WAIT_ADVICE',
        "  '': 'The controller never wrote",
        "  none: 'The controller never wrote",
        'no status'
      ],
      [
        'adviceForWait',
        "WAIT_ADVICE[lastReason]! : ''",
        "WAIT_ADVICE[lastReason]! : (FAILURE_ADVICE[lastReason] ?? '')",
        'a failure reason advises a wait'
      ]
    ])
  }
]
