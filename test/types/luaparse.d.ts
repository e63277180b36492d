// The part of luaparse 0.3.1 that test/config/gitops uses. luaparse ships no types.
declare module 'luaparse' {
  export interface LuaNode {
    type: string
    range?: [number, number]
    [field: string]: unknown
  }

  export interface ParseOptions {
    luaVersion?: '5.1' | '5.2' | '5.3' | 'LuaJIT'
    comments?: boolean
    ranges?: boolean
    locations?: boolean
    onCreateNode?: (node: LuaNode) => void
  }

  export function parse(code: string, options?: ParseOptions): LuaNode
  const luaparse: { parse: typeof parse }
  export default luaparse
}
