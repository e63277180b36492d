// GitHub's REST error answers: {message, documentation_url, status} and, for 422s, `errors`.
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly documentationUrl: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: unknown[]
  ) {
    super(message)
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      documentation_url: this.documentationUrl,
      // GitHub sends `status` as a string (measured, pome-sh/digital-twins#400).
      status: String(this.status)
    }
  }
}

/** 422 Validation Failed with GitHub's `errors` array (e.g. google/go-github#1441). */
export function validationFailed(documentationUrl: string, errors: unknown[]): HttpFailure {
  return new HttpFailure(422, 'Validation Failed', documentationUrl, {}, errors)
}

const REST = 'https://docs.github.com/rest'

export const DOCS = {
  rest: REST,
  graphql: 'https://docs.github.com/graphql',
  getRepo: `${REST}/repos/repos#get-a-repository`,
  getBranch: `${REST}/branches/branches#get-a-branch`,
  getProtection: `${REST}/branches/branch-protection#get-branch-protection`,
  branchRules: `${REST}/repos/rules#get-rules-for-a-branch`,
  // Classic protection refusals point at the help article (measured on 405 and 409 answers).
  protectedBranches: 'https://docs.github.com/articles/about-protected-branches',
  getContent: `${REST}/repos/contents#get-repository-content`,
  putContent: `${REST}/repos/contents#create-or-update-file-contents`,
  deleteContent: `${REST}/repos/contents#delete-a-file`,
  compare: `${REST}/commits/commits#compare-two-commits`,
  getRepoCommit: `${REST}/commits/commits#get-a-commit`,
  getRef: `${REST}/git/refs#get-a-reference`,
  matchingRefs: `${REST}/git/refs#list-matching-references`,
  createRef: `${REST}/git/refs#create-a-reference`,
  updateRef: `${REST}/git/refs#update-a-reference`,
  deleteRef: `${REST}/git/refs#delete-a-reference`,
  getBlob: `${REST}/git/blobs#get-a-blob`,
  createBlob: `${REST}/git/blobs#create-a-blob`,
  getTree: `${REST}/git/trees#get-a-tree`,
  createTree: `${REST}/git/trees#create-a-tree`,
  getCommit: `${REST}/git/commits#get-a-commit-object`,
  createCommit: `${REST}/git/commits#create-a-commit`,
  listPulls: `${REST}/pulls/pulls#list-pull-requests`,
  createPull: `${REST}/pulls/pulls#create-a-pull-request`,
  getPull: `${REST}/pulls/pulls#get-a-pull-request`,
  updatePull: `${REST}/pulls/pulls#update-a-pull-request`,
  mergePull: `${REST}/pulls/pulls#merge-a-pull-request`,
  getIssue: `${REST}/issues/issues#get-an-issue`,
  addLabels: `${REST}/issues/labels#add-labels-to-an-issue`,
  listComments: `${REST}/issues/comments#list-issue-comments`,
  createComment: `${REST}/issues/comments#create-an-issue-comment`,
  getComment: `${REST}/issues/comments#get-an-issue-comment`,
  updateComment: `${REST}/issues/comments#update-an-issue-comment`,
  rateLimit: `${REST}/overview/rate-limits-for-the-rest-api`,
  secondary: `${REST}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`
}
