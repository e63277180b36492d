// The Kubernetes protobuf encoding, just enough to read a SelfSubjectAccessReview: kubectl sends
// built-in types (authorization.k8s.io) as application/vnd.kubernetes.protobuf and accepts JSON
// back. Envelope: the magic bytes "k8s\0", then a runtime.Unknown {typeMeta=1, raw=2,
// contentEncoding=3, contentType=4} whose raw field is the object's message (k8s.io/api
// authorization/v1 generated.proto: SelfSubjectAccessReview {metadata=1, spec=2, status=3},
// spec {resourceAttributes=1, nonResourceAttributes=2}, ResourceAttributes {namespace=1, verb=2,
// group=3, version=4, resource=5, subresource=6, name=7}, NonResourceAttributes {path=1, verb=2}).
import { badRequest } from './status.js'

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf'
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]) // "k8s\0"

type Field = { number: number; bytes?: Buffer; varint?: bigint }

/** The fields of one protobuf message (wire types 0, 1, 2 and 5). */
function decodeFields(message: Buffer): Field[] {
  const fields: Field[] = []
  let offset = 0
  const varint = (): bigint => {
    let result = 0n
    let shift = 0n
    for (;;) {
      if (offset >= message.length) throw badRequest('protobuf: truncated varint')
      const byte = message[offset++]
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
      shift += 7n
    }
  }
  while (offset < message.length) {
    const tag = varint()
    const number = Number(tag >> 3n)
    const wire = Number(tag & 7n)
    if (wire === 0) fields.push({ number, varint: varint() })
    else if (wire === 2) {
      const length = Number(varint())
      if (offset + length > message.length) throw badRequest('protobuf: truncated field')
      fields.push({ number, bytes: message.subarray(offset, offset + length) })
      offset += length
    } else if (wire === 1) offset += 8
    else if (wire === 5) offset += 4
    else throw badRequest(`protobuf: unsupported wire type ${wire}`)
  }
  return fields
}

const message = (fields: Field[], number: number): Buffer | undefined =>
  fields.find((f) => f.number === number)?.bytes

function strings(bytes: Buffer | undefined, names: Record<number, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const field of bytes ? decodeFields(bytes) : [])
    // Empty strings are left out, as the JSON encoding (omitempty) of the same object does.
    if (names[field.number] && field.bytes?.length)
      out[names[field.number]] = field.bytes.toString('utf8')
  return out
}

/** A SelfSubjectAccessReview sent as Kubernetes protobuf, as the JSON object it stands for. */
export function decodeSelfSubjectAccessReview(body: Buffer): unknown {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC))
    throw badRequest('protobuf: the body does not start with the Kubernetes magic number')
  const unknown = decodeFields(body.subarray(4))
  const typeMeta = strings(message(unknown, 1), { 1: 'apiVersion', 2: 'kind' })
  const review = decodeFields(message(unknown, 2) ?? Buffer.alloc(0))
  const spec = decodeFields(message(review, 2) ?? Buffer.alloc(0))
  const resource = message(spec, 1)
  const nonResource = message(spec, 2)
  return {
    ...typeMeta,
    spec: {
      ...(resource
        ? {
            resourceAttributes: strings(resource, {
              1: 'namespace',
              2: 'verb',
              3: 'group',
              4: 'version',
              5: 'resource',
              6: 'subresource',
              7: 'name'
            })
          }
        : {}),
      ...(nonResource
        ? { nonResourceAttributes: strings(nonResource, { 1: 'path', 2: 'verb' }) }
        : {})
    }
  }
}
