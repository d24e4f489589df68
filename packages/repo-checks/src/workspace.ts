// The workspace as scripts/workspace.mjs finds it (one discovery for scripts and checks alike).
export {
  blobUrl,
  packageLinks,
  publicPackages,
  repoRoot,
  repositoryHome,
  workspacePackages,
} from '../../../scripts/workspace.mjs';

export interface WorkspacePackage {
  id: string;
  rel: string;
  dir: string;
  manifest: Record<string, unknown>;
}
