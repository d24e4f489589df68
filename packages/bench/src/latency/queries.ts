/** The recall queries every latency run cycles through. */
export const QUERIES = [
  'What did we decide about the database migration?',
  'Which editor does the user prefer?',
  'How do I deploy the staging server again?',
  'Remind me what the project deadline is',
  'What language is the backend written in?',
];
