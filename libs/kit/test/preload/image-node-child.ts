import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Runs `script`, an ES module that prints one line of JSON, in a child on the image's Node
 * (scripts/image-node.sh: the first call may fetch it from the npm registry), under tsx, after `flags`
 * (the preload under test, when there is one), and returns what it printed.
 */
export function reportFromImageNode<Report>(flags: string[], script: string): Report {
  const output = execFileSync(imageNode(), ['--import', 'tsx', ...flags, '--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
  return JSON.parse(output) as Report;
}

/** The path of the image's node binary (scripts/image-node.sh). */
export function imageNode(): string {
  return execFileSync('bash', [`${REPO_ROOT}scripts/image-node.sh`], { encoding: 'utf8' }).trim();
}
