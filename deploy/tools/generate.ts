/**
 * `npm run generate`: compiles proto/ and generates TypeScript into gen/.
 *
 * buf cannot fetch buf.build/bufbuild/protovalidate here (no network), so the validate.proto
 * descriptor embedded in @bufbuild/protovalidate is written to a descriptor set, protoc (Debian's
 * protobuf-compiler) compiles our files against it into an image, and buf lints and generates
 * from that image. See docs/development.md, "Offline protovalidate recipe".
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, toBinary, type DescFile } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, file_google_protobuf_struct, file_google_protobuf_empty } from '@bufbuild/protobuf/wkt';
import { file_buf_validate_validate } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';

const mode = process.argv[2] ?? 'all';

/** Every file with its dependencies first, each once. */
function withDependencies(files: DescFile[]): DescFile[] {
  const out: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (f: DescFile) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    f.dependencies.forEach(visit);
    out.push(f);
  };
  files.forEach(visit);
  return out;
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return protoFiles(path);
    return name.endsWith('.proto') ? [path] : [];
  });
}

mkdirSync('build', { recursive: true });
const deps = withDependencies([file_buf_validate_validate, file_google_protobuf_struct, file_google_protobuf_empty]);
writeFileSync('build/deps.binpb', toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: deps.map((f) => f.proto) })));

const sources = protoFiles('proto').map((p) => p.slice('proto/'.length)).sort();
execFileSync('protoc', ['--descriptor_set_in=build/deps.binpb', '-I', 'proto', '--include_imports', '--include_source_info', '-o', 'build/api.binpb', ...sources], { stdio: 'inherit' });

const buf = join('node_modules', '.bin', 'buf');
execFileSync(buf, ['lint', 'build/api.binpb', '--path', 'passkeyauth'], { stdio: 'inherit' });
if (mode !== 'lint') {
  rmSync('gen', { recursive: true, force: true });
  execFileSync(buf, ['generate', 'build/api.binpb', '--template', 'buf.gen.yaml', '--path', 'passkeyauth'], { stdio: 'inherit' });
}
