// The GraphQL document parser of the sandbox's GitHub endpoint (graphql.ts): a tokenizer and a
// small parser that finds the first operation's type and its fields with their arguments; values
// may be inline or `$variables`. Only what the served operations need (graphql-operations.ts).
interface Token {
  kind: 'punct' | 'name' | 'string' | 'number' | 'variable'
  text: string
  line: number
  column: number
}

export class ParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number
  ) {
    super(message)
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let line = 1
  let lineStart = 0
  let i = 0
  while (i < source.length) {
    const char = source[i]
    const column = i - lineStart + 1
    if (char === '\n') {
      line += 1
      lineStart = i + 1
      i += 1
    } else if (/[\s,\uFEFF]/.test(char)) {
      i += 1
    } else if (char === '#') {
      while (i < source.length && source[i] !== '\n') i += 1
    } else if (source.startsWith('...', i)) {
      tokens.push({ kind: 'punct', text: '...', line, column })
      i += 3
    } else if ('{}()[]:!=@|&'.includes(char)) {
      tokens.push({ kind: 'punct', text: char, line, column })
      i += 1
    } else if (char === '$') {
      const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i + 1))?.[0] ?? ''
      tokens.push({ kind: 'variable', text: name, line, column })
      i += 1 + name.length
    } else if (char === '"') {
      if (source.startsWith('"""', i)) {
        const end = source.indexOf('"""', i + 3)
        if (end === -1) throw new ParseError('Unterminated string', line, column)
        tokens.push({ kind: 'string', text: source.slice(i + 3, end), line, column })
        i = end + 3
        continue
      }
      let j = i + 1
      while (j < source.length && source[j] !== '"') j += source[j] === '\\' ? 2 : 1
      if (j >= source.length) throw new ParseError('Unterminated string', line, column)
      tokens.push({
        kind: 'string',
        text: JSON.parse(source.slice(i, j + 1)) as string,
        line,
        column
      })
      i = j + 1
    } else if (/[-0-9]/.test(char)) {
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i))?.[0] ?? char
      tokens.push({ kind: 'number', text: number, line, column })
      i += number.length
    } else if (/[_A-Za-z]/.test(char)) {
      const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i))![0]
      tokens.push({ kind: 'name', text: name, line, column })
      i += name.length
    } else {
      throw new ParseError(`Parse error on "${char}"`, line, column)
    }
  }
  return tokens
}

export interface Field {
  name: string
  alias: string | null
  args: Record<string, unknown>
  /** null for a leaf. */
  selections: Field[] | null
  line: number
  column: number
}

export interface Operation {
  type: 'query' | 'mutation' | 'subscription'
  fields: Field[]
}

type OperationType = Operation['type']

/** Reads one document's tokens in order; each method takes the grammar rule it is named after. */
class Parser {
  private pos = 0

  constructor(
    private readonly tokens: Token[],
    private readonly variables: Record<string, unknown>
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.pos]
  }

  private next(): Token | undefined {
    return this.tokens[this.pos++]
  }

  private fail(token: Token | undefined): never {
    const at = token ?? this.tokens[this.tokens.length - 1]
    throw new ParseError(
      token ? `Parse error on "${token.text}"` : 'Unexpected end of document',
      at?.line ?? 1,
      at?.column ?? 1
    )
  }

  private expect(text: string): void {
    const token = this.tokens[this.pos]
    if (!token || token.text !== text || token.kind === 'string') this.fail(token)
    this.pos += 1
  }

  private name(): Token {
    const token = this.next()
    if (token?.kind !== 'name') this.fail(token)
    return token
  }

  private skipBalanced(open: string, close: string): void {
    let depth = 0
    do {
      const token = this.next()
      if (!token) this.fail(token)
      if (token.kind === 'punct' && token.text === open) depth += 1
      if (token.kind === 'punct' && token.text === close) depth -= 1
    } while (depth > 0)
  }

  value(): unknown {
    const token = this.next()
    if (!token) return this.fail(token)
    if (token.kind === 'variable') return this.variables[token.text]
    if (token.kind === 'string') return token.text
    if (token.kind === 'number') return Number(token.text)
    if (token.kind === 'name') {
      if (token.text === 'true') return true
      if (token.text === 'false') return false
      if (token.text === 'null') return null
      return token.text // an enum value
    }
    if (token.text === '[') return this.listRest()
    if (token.text === '{') return this.objectRest()
    return this.fail(token)
  }

  /** A list value after its `[`. */
  private listRest(): unknown[] {
    const list: unknown[] = []
    while (this.peek()?.text !== ']') list.push(this.value())
    this.pos += 1
    return list
  }

  /** An object value after its `{`. */
  private objectRest(): Record<string, unknown> {
    const object: Record<string, unknown> = {}
    while (this.peek()?.text !== '}') {
      const key = this.name()
      this.expect(':')
      object[key.text] = this.value()
    }
    this.pos += 1
    return object
  }

  /** `query Name($v: T) ` before the selection set; a bare `{` is a query. */
  operationType(): OperationType {
    const first = this.peek()
    if (first?.kind !== 'name' || !['query', 'mutation', 'subscription'].includes(first.text))
      return 'query'
    this.pos += 1
    if (this.peek()?.kind === 'name') this.pos += 1
    if (this.peek()?.text === '(') this.skipBalanced('(', ')')
    return first.text as OperationType
  }

  selectionSet(): Field[] {
    this.expect('{')
    const fields: Field[] = []
    while (this.peek() && this.peek()!.text !== '}') {
      if (this.peek()!.text === '...') fields.push(...this.inlineFragment())
      else fields.push(this.field())
    }
    this.expect('}')
    return fields
  }

  /** An inline fragment (`... on Type { }`) adds its fields; named fragments are not served. */
  private inlineFragment(): Field[] {
    this.pos += 1
    if (this.peek()?.text === 'on') this.pos += 2
    if (this.peek()?.text === '{') return this.selectionSet()
    this.pos += 1
    return []
  }

  private field(): Field {
    const token = this.name()
    let name = token.text
    let alias: string | null = null
    if (this.peek()?.text === ':') {
      this.pos += 1
      alias = name
      name = this.name().text
    }
    const args = this.peek()?.text === '(' ? this.arguments() : {}
    this.skipDirectives()
    const selections = this.peek()?.text === '{' ? this.selectionSet() : null
    return { name, alias, args, selections, line: token.line, column: token.column }
  }

  private arguments(): Record<string, unknown> {
    const args: Record<string, unknown> = {}
    this.pos += 1
    while (this.peek()?.text !== ')') {
      const key = this.name()
      this.expect(':')
      args[key.text] = this.value()
    }
    this.pos += 1
    return args
  }

  private skipDirectives(): void {
    while (this.peek()?.text === '@') {
      this.pos += 2
      if (this.peek()?.text === '(') this.skipBalanced('(', ')')
    }
  }
}

/** Parses the first operation: its type and top-level fields with argument values resolved. */
export function parseOperation(source: string, variables: Record<string, unknown>): Operation {
  const parser = new Parser(tokenize(source), variables)
  const type = parser.operationType()
  return { type, fields: parser.selectionSet() }
}
