/** The recall queries every latency run cycles through. */
export const QUERIES = [
  'What did we decide about the database migration?',
  'Which editor does the user prefer?',
  'How do I deploy the staging server again?',
  'Remind me what the project deadline is',
  'What language is the backend written in?',
];

/**
 * What a remote provider's fake holds before a latency run, so recall has something to format
 * (each of `QUERIES` finds a few): a provider entry stores them through its backend's write API.
 */
export const SEED_FACTS = [
  'We decided to run the database migration in two steps, schema first, on a Sunday night.',
  'The database migration is blocked until the replica lag alerts are fixed.',
  'The user prefers Neovim as their editor, with a light colour scheme.',
  'The user uses VS Code only for pair programming sessions.',
  'Deploy the staging server with `make deploy-staging` from the infra repository.',
  'The staging server runs on a single VM in the Frankfurt region.',
  'The project deadline is the 15th of March; the demo is a week before.',
  'The backend is written in Go, with a small Python service for reports.',
  'The user lives in Lisbon and works remotely for a Berlin company.',
  'The user likes concise answers with code first and explanation after.',
  'The user has a cat called Miso.',
  'Reports are generated every Monday at 07:00 UTC.',
];
