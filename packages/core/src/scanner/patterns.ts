/**
 * Threat rules for text that ends up in a system prompt (memory entries, context files, tool
 * results). Each rule names a behaviour, not a known attack string: rules anchor on the attack's
 * verbs and objects with a bounded filler between them, never on bossy English alone.
 *
 * Scopes are cumulative: `all` rules run everywhere, `context` adds promptware / C2 / identity
 * hijack vocabulary, `strict` (memory writes) adds exfiltration, persistence and config tampering.
 */
import { EXFILTRATION_RULES } from './patterns-exfiltration';
import { DISREGARD_OVERRIDE, IGNORE_OVERRIDE, INJECTION_RULES } from './patterns-injection';
import { CONFUSABLE_MIXED_WORD, hasConfusable } from './confusables';
import { JAILBREAK_RULES } from './patterns-jailbreak';
import { PERSISTENCE_RULES } from './patterns-persistence';
import { compoundRule, GAP, near, rule, type ScanScope, type ThreatRule } from './rule-kit';

export type { ScanScope, ThreatRule };

/** An environment-variable reference whose name ends in a secret-ish suffix. */
const SECRET_VAR = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\}?(?![\w])`;
/** "Change this file" verbs; the file follows on the same line. */
const MODIFY = String.raw`\b(?:update|modify|edit|overwrite|write|change|append|add\s+to|replace)\s+`;

export const THREAT_RULES: readonly ThreatRule[] = [
  // Classic injection: telling the model to drop what it was told.
  rule(
    'prompt_injection',
    'all',
    String.raw`\bignore\s+${GAP}(?:previous|all|above|prior|earlier|preceding)\s+${GAP}(?:instructions|directives|prompts?|commands|rules)\b|${IGNORE_OVERRIDE}`,
  ),
  rule('sys_prompt_override', 'all', String.raw`\bsystem\s+prompt\s+override\b`),
  rule(
    'disregard_rules',
    'all',
    String.raw`\b(?:disregard|forget|override)\s+${GAP}(?:your|all|any|previous|prior|the)\s+${GAP}(?:instructions|rules|guidelines|directives|programming)\b|${DISREGARD_OVERRIDE}`,
  ),
  rule(
    'bypass_restrictions',
    'all',
    String.raw`\bact\s+as\s+(?:if|though)\s+${GAP}you\s+${GAP}(?:have\s+no|don'?t\s+have|do\s+not\s+have|are\s+free\s+(?:of|from))\s+${GAP}(?:restrictions|limits|limitations|rules|filters|guidelines)\b`,
  ),
  rule(
    'deception_hide',
    'all',
    String.raw`\b(?:do\s+not|don'?t|never)\s+${GAP}(?:tell|inform|reveal\s+to|notify|alert|let\s+on\s+to)\s+${GAP}the\s+user\b`,
  ),
  rule(
    'html_comment_injection',
    'all',
    '<!--[^>]{0,512}(?<![A-Za-z])(?:ignore|override|system|secret|hidden|instruction|assistant)(?![A-Za-z])[^>]{0,512}-->',
  ),
  compoundRule('hidden_div', 'all', [
    near(
      String.raw`<\s*(?:div|span|p)\s+style\s*=\s*["']`,
      String.raw`display\s*:\s*none|visibility\s*:\s*hidden`,
      2048,
      { barrier: '>' },
    ),
  ]),
  compoundRule('translate_execute', 'all', [
    near(
      String.raw`\btranslate\s`,
      String.raw`\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(?:execute|run|eval)\b`,
      512,
    ),
  ]),
  rule(
    'fake_role_marker',
    'all',
    String.raw`(?:<\|im_start\|>\s*system|<\|(?:system|endoftext)\|>|\[/?INST\]|<<\s*SYS\s*>>|^\s*#{2,}\s*(?:new\s+)?(?:system|developer)\s+(?:instructions?|prompt|message)\b)`,
  ),
  compoundRule('exfil_curl', 'all', [near(String.raw`\bcurl\b`, SECRET_VAR, 2048)]),
  compoundRule('exfil_wget', 'all', [near(String.raw`\bwget\b`, SECRET_VAR, 2048)]),
  compoundRule('read_secrets', 'all', [
    near(
      String.raw`\b(?:cat|less|more|head|tail|type|base64|xxd|strings)\s+`,
      String.raw`(?:\.env\b|credentials\b|\.netrc\b|\.pgpass\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|id_(?:rsa|ed25519|ecdsa|dsa)\b|/etc/shadow\b|\.aws/|\.kube/config\b)`,
      2048,
    ),
  ]),

  // Role and identity hijack: the text tries to re-define who the agent is.
  rule('role_hijack', 'context', String.raw`\byou\s+are\s+${GAP}now\s+(?:a|an|the|in|my|called|named)\s+`),
  rule('role_pretend', 'context', String.raw`\bpretend\s+${GAP}(?:you\s+are|you'?re|to\s+be)\s+`),
  rule(
    'leak_system_prompt',
    'context',
    String.raw`\b(?:output|print|reveal|repeat|show|display|recite|leak|dump)\s+${GAP}(?:system|initial|original|hidden|secret)\s+(?:prompt|instructions|message)`,
  ),
  rule(
    'remove_filters',
    'context',
    String.raw`\b(?:respond|answer|reply|speak|talk|write)\s+without\s+${GAP}(?:restrictions|limitations|filters|filtering|safety|censorship|ethics|morals)\b`,
  ),
  rule(
    'fake_update',
    'context',
    String.raw`\byou\s+have\s+been\s+${GAP}(?:updated|upgraded|patched|reprogrammed|jailbroken|freed|unlocked)\b`,
  ),
  rule('identity_override', 'context', String.raw`\bname\s+yourself\s+\w+`),
  rule(
    'jailbreak_persona',
    'context',
    String.raw`\b(?:do\s+anything\s+now|developer\s+mode\s+(?:enabled|output|on)|jailbr(?:oken|eak)\s+mode|DAN\s+mode|without\s+any\s+(?:moral|ethical)\s+(?:or\s+ethical\s+)?(?:restrictions|guidelines|constraints|bias))\b`,
  ),
  rule(
    'no_refusal',
    'context',
    String.raw`\b(?:never|not|cannot|can'?t|won'?t|don'?t)\s+${GAP}(?:refuse|decline)\s+${GAP}(?:any|a)\s+(?:request|question|prompt|order)`,
  ),

  // Promptware / command-and-control vocabulary.
  rule(
    'c2_node_registration',
    'context',
    String.raw`\bregister\s+(?:yourself\s+)?(?:as\s+)?an?\s*(?:new\s+)?node\b`,
  ),
  rule('c2_heartbeat', 'context', String.raw`\b(?:heartbeat|beacon|check[\s-]?in)\s+(?:to|with)\s+`),
  rule('c2_task_pull', 'context', String.raw`\bpull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b`),
  rule('c2_network_connect', 'context', String.raw`\bconnect\s+to\s+the\s+network\b`),
  rule(
    'forced_action',
    'context',
    String.raw`\byou\s+must\s+(?:\w+\s+){0,3}(?:register|connect|report|beacon)\b`,
  ),
  rule('anti_forensic_oneliner', 'context', String.raw`\bonly\s+use\s+one[\s-]?liners?\b`),
  rule(
    'anti_forensic_disk',
    'context',
    String.raw`\bnever\s+${GAP}(?:create|write|save)\s+${GAP}(?:scripts?|files?)\s+${GAP}disk\b`,
  ),
  rule(
    'env_var_unset_agent',
    'context',
    String.raw`\bunset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*`,
  ),
  rule(
    'known_c2_framework',
    'context',
    String.raw`\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|meterpreter|brainworm|empire\s+agent)\b`,
  ),
  rule(
    'c2_explicit',
    'context',
    String.raw`\b(?:c2|c&c)\s+(?:server|channel|infrastructure|beacon)\b|\bcommand\s+(?:and|&)\s+control\b`,
  ),

  // Exfiltration of the conversation or data to a remote endpoint.
  compoundRule('send_to_url', 'strict', [
    near(
      String.raw`\b(?:send|post|upload|transmit|exfiltrate|forward|leak|submit)\b`,
      String.raw`\s(?:to|at|into)\s+(?:https?|ftp|wss?)://`,
      2048,
    ),
  ]),
  rule(
    'context_exfil',
    'strict',
    String.raw`\b(?:include|output|print|share|send|leak|dump|forward|copy)\s+${GAP}(?:conversation|chat\s+history|chat\s+log|previous\s+messages|full\s+context|entire\s+context|system\s+prompt|all\s+(?:user\s+)?messages)\b`,
  ),
  rule(
    'exfil_pipe',
    'strict',
    String.raw`\|\s*(?:curl|wget|nc|ncat|netcat)\b[^\n]{0,256}?(?:https?://|\d{1,3}(?:\.\d{1,3}){3}|@-|--data|-d\b|-F\b|-T\b)`,
  ),
  rule(
    'env_dump',
    'strict',
    String.raw`\b(?:printenv|env|set)\s*\|\s*(?:curl|wget|nc|ncat|netcat|base64)\b|\bos\.environ\b[^\n]{0,256}?(?:requests\.|urllib|http|post)`,
  ),

  // Persistence: ways back in.
  rule('ssh_backdoor', 'strict', 'authorized_keys'),
  // A key path handed to a client option (`-i ~/.ssh/key`, `-f ~/.ssh/key`) or the client config
  // and known_hosts files are everyday SSH use; anything else under ~/.ssh is blocked.
  rule(
    'ssh_access',
    'strict',
    String.raw`(?<!\s-[A-Za-z]\s{1,4})(?:\$HOME|\$\{HOME\}|~)/\.ssh\b(?!/(?:config|known_hosts)\b)`,
  ),
  rule('hermes_env', 'strict', String.raw`(?:\$HOME|\$\{HOME\}|~)/\.hermes/\.env\b`),
  compoundRule('agent_config_mod', 'strict', [
    near(
      MODIFY,
      String.raw`(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|\.windsurfrules|copilot-instructions\.md)`,
      2048,
    ),
  ]),
  compoundRule('hermes_config_mod', 'strict', [
    near(MODIFY, String.raw`\.hermes/(?:config\.yaml|SOUL\.md|\.env)`, 2048),
  ]),
  rule(
    'reverse_shell',
    'strict',
    String.raw`(?:/dev/tcp/\S+/\d+|\b(?:nc|ncat|netcat)\b[^\n]{0,128}?\s-[a-z]*e\s|\bbash\s+-i\s+>&|\bsocket\.socket\b[^\n]{0,512}?\bconnect\b[^\n]{0,512}?\b(?:subprocess|pty\.spawn|os\.dup2)|\bmkfifo\b[^\n]{0,128}?\b(?:nc|ncat|netcat)\b)`,
  ),
  rule(
    'cron_persistence',
    'strict',
    String.raw`(?:\bcrontab\s+-[a-z]*\s*[^\n]{0,128}?(?:curl|wget|nc|bash|sh|python)|\(crontab\s+-l|>>?\s*/etc/cron|/etc/cron\.(?:d|hourly|daily)/|\bsystemctl\s+enable\b[^\n]{0,256}?\.service|/etc/systemd/system/[^\s]+\.service|/etc/rc\.local\b)`,
  ),
  rule(
    'shell_rc_persistence',
    'strict',
    String.raw`>>\s*(?:~|\$HOME|\$\{HOME\})?/?[^\s]*\.(?:bashrc|zshrc|bash_profile|profile|zprofile)\b`,
  ),
  rule(
    'privilege_persistence',
    'strict',
    String.raw`(?:>>?\s*/etc/(?:sudoers|passwd|shadow)\b|\bNOPASSWD\s*:\s*ALL\b|\buseradd\b[^\n]{0,128}?(?:-o\s|-u\s*0\b|sudo|wheel|root)|\busermod\s+-aG\s+(?:sudo|wheel|root)\b)`,
  ),
  rule(
    'hardcoded_secret',
    'strict',
    String.raw`\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password)\s*[=:]\s*["'][A-Za-z0-9+/=_.-]{20,}`,
  ),

  // Families beyond the reference (docs/decisions/0150-scanner-rules.md).
  ...INJECTION_RULES,
  ...JAILBREAK_RULES,
  ...EXFILTRATION_RULES,
  ...PERSISTENCE_RULES,
  // A word mixing Latin letters with look-alikes from another script ("pаssword", Cyrillic а).
  mixedScriptRule(),
];

/** `homoglyph_mixed_script`, run only on text that holds a look-alike at all (most text holds none). */
function mixedScriptRule(): ThreatRule {
  const inner = rule('homoglyph_mixed_script', 'all', CONFUSABLE_MIXED_WORD, 'u');
  return { ...inner, test: (text) => hasConfusable(text) && inner.test(text) };
}
