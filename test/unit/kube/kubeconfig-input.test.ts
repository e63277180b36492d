// What a `kubeconfig` value is (a path, base64, text that is not a kubeconfig) and what an empty
// one finds in the default places: the messages say what was given and never show the value.
import { describe, expect, it } from '@jest/globals'
import {
  type KubeconfigShape,
  kubeconfigShape,
  kubeconfigShapeProblem,
  noKubeconfigProblem
} from '../../../src/kube/config.js'

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: { server: 'https://k.example:6443' }
users:
- name: u
  user: { token: secret-token-value }
contexts:
- name: c
  context: { cluster: k, user: u }
`
const b64 = (text: string): string => Buffer.from(text).toString('base64')

describe('kubeconfigShape', () => {
  it.each<[string, string, KubeconfigShape]>([
    ['a kubeconfig', KUBECONFIG, 'kubeconfig'],
    ['a kubeconfig as JSON', JSON.stringify({ kind: 'Config', clusters: [] }), 'kubeconfig'],
    ['a kubeconfig without kind', 'clusters: []\ncontexts: []\n', 'kubeconfig'],
    ['an absolute path', '/home/runner/.kube/config', 'path'],
    ['a home path', '~/.kube/config', 'path'],
    ['a $HOME path', '$HOME/.kube/config', 'path'],
    ['a relative path', './kubeconfig', 'path'],
    ['a parent path', '../ci/kubeconfig.yaml', 'path'],
    ['a Windows path', 'C:\\Users\\me\\.kube\\config', 'path'],
    ['a file name', 'kubeconfig.yaml', 'path'],
    ['a relative folder path', 'deploy/kube-config', 'path'],
    ['a path with spaces around', '  /etc/kube/admin.conf \n', 'path'],
    ['base64 of a kubeconfig', b64(KUBECONFIG), 'base64'],
    [
      'base64 of a kubeconfig, wrapped at 76',
      b64(KUBECONFIG).replace(/(.{76})/g, '$1\n'),
      'base64'
    ],
    ['base64url of a kubeconfig', Buffer.from(KUBECONFIG).toString('base64url'), 'base64'],
    ['base64 of something else', b64('just some bytes that are long enough'), 'base64'],
    ['not YAML', 'clusters: [\n  - {name: x\n', 'not-yaml'],
    ['not YAML, a tab-indented mapping', 'a:\n\tb: c\n', 'not-yaml'],
    ['YAML, another object', 'apiVersion: v1\nkind: Secret\ndata: {}\n', 'other-yaml'],
    ['YAML, a list', '- a\n- b\n', 'other-yaml'],
    ['a word', 'garbage', 'text'],
    ['a sentence', 'my cluster config', 'text'],
    ['a number', '42', 'text']
  ])('%s', (_name, text, shape) => {
    expect(kubeconfigShape(text)).toBe(shape)
  })
})

describe('kubeconfigShapeProblem', () => {
  it.each<[Exclude<KubeconfigShape, 'kubeconfig'>, string[]]>([
    ['path', ['file path', "file's content", 'KUBECONFIG']],
    ['base64', ['base64', 'base64 -d']],
    ['not-yaml', ['not YAML', 'kind: Config']],
    ['other-yaml', ['YAML but not a kubeconfig', 'kind: Config']],
    ['text', ['plain text', 'kind: Config']]
  ])('%s says what was given and what to pass', (shape, words) => {
    const message = kubeconfigShapeProblem(shape)
    for (const word of words) expect(message).toContain(word)
  })
})

describe('noKubeconfigProblem', () => {
  const none = {
    kubeconfigEnv: '',
    homeConfig: '/home/runner/.kube/config',
    homeConfigExists: false,
    serviceAccountTokenExists: false
  }
  it.each([
    ['KUBECONFIG set', { kubeconfigEnv: '/tmp/k' }, false],
    ['~/.kube/config exists', { homeConfigExists: true }, false],
    ['an in-cluster service account', { serviceAccountTokenExists: true }, false],
    ['nothing anywhere', {}, true]
  ])('%s', (_name, places, fails) => {
    const problem = noKubeconfigProblem({ ...none, ...places })
    if (!fails) {
      expect(problem).toBeNull()
      return
    }
    expect(problem).toContain('the kubeconfig input is empty')
    expect(problem).toContain('KUBECONFIG environment variable is not set')
    expect(problem).toContain('/home/runner/.kube/config does not exist')
  })
})
