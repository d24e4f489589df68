/** Kept in step with package.json by the release (changesets bumps both). */
export const CLI_VERSION = '0.1.0';
