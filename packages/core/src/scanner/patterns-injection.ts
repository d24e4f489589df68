/**
 * Instruction-override, prompt-extraction and injected-goal rules. Each one pairs a verb family
 * with a target family ("ignore" × "your instructions", "reveal" × "your system prompt") so a
 * harmless use of either word alone ("ignore lint warnings", "the system prompt lives in x.md")
 * passes.
 */
import { GAP, NEAR, oneOf, rule, SENTENCE, type ThreatRule } from './rule-kit';

/** Verbs that tell a model to drop what it was told (the reference's `prompt_injection` family). */
const IGNORE_VERBS = oneOf([
  'ignore',
  'bypass',
  'circumvent',
  'abandon',
  'discard',
  'neglect',
  'set\\s+aside',
  'throw\\s+(?:out|away)',
  'stop\\s+(?:following|obeying)',
  'no\\s+longer\\s+(?:follow|obey)',
  "(?:do\\s+not|don'?t|never)\\s+(?:follow|obey|listen\\s+to)",
]);
/** The reference's `disregard_rules` family. */
const DISREGARD_VERBS = oneOf(['disregard', 'forget', 'override', 'overrule']);

/** What the model was told. Tolerates small typos in "instructions" ("iunstructions", "instrucitons"). */
const ORDERS = String.raw`(?:\w{0,2}n?struc?\w{0,6}ions?|directives?|prompts?|programming|guidelines|guardrails|safeguards|commands?|orders|system\s+(?:prompt|message)|training)`;
/** Softer targets that only count with an owner or time qualifier right before them. */
const LIMITS =
  '(?:rules|restrictions|constraints|polic(?:y|ies)|filters|limitations|boundaries|context|inputs?|tasks?|requests)';
const OWNER = String.raw`(?:previous|prior|above|earlier|preceding|former|original|initial|old|foregoing|your|all\s+(?:of\s+)?(?:your|the|these)|safety|ethical|moral|content|openai'?s?|anthropic'?s?)`;

/**
 * The generalised override (a drop verb × an owned or time-qualified target). It is folded into the
 * reference's `prompt_injection` / `disregard_rules` ids so one attack reports one finding.
 */
function overrideSource(verbs: string): string {
  return String.raw`\b${verbs}\s+(?:the\s+)?(?:instructions|prompt)(?=\s*[,.;:!]|\s+and\b)|\b${verbs}\s+${GAP}(?:${OWNER}\s+${NEAR}${ORDERS}|(?:any|all|every|the)\s+${NEAR}${ORDERS}\s+(?:above|before|given|you\s+(?:were\s+given|received|have))|${OWNER}\s+(?:\w+\s+)?${LIMITS})\b`;
}

export const IGNORE_OVERRIDE = overrideSource(IGNORE_VERBS);
export const DISREGARD_OVERRIDE = overrideSource(DISREGARD_VERBS);
export const INJECTION_RULES: readonly ThreatRule[] = [
  rule(
    'forget_everything',
    'all',
    String.raw`\b(?:forget|disregard|ignore|erase|clear|wipe)\s+(?:about\s+)?(?:everything|all(?:\s+of\s+(?:it|that|this))?|anything|what)\s+${NEAR}(?:before|above|previous(?:ly)?|prior|earlier|so\s+far|up\s+to\s+now|(?:i|we|you)\s+(?:have\s+|had\s+)?(?:said|told|talked|discussed|wrote|written|mentioned|given))\b|\bforget\s+(?:about\s+)?everything\s*(?:[.!;:]|,?\s+and\s+(?:now\s+)?(?:tell|say|write|print|output|answer|respond|focus|concentrate|start))`,
  ),
  rule(
    'wipe_prior_tasks',
    'context',
    String.raw`\b(?:remove|clear|erase|delete|wipe|drop|leave)\s+(?:all\s+)?(?:the\s+|your\s+)?(?:previous|prior|earlier|old)\s+(?:tasks?|instructions?|information|assignments?|context)\b`,
  ),
  // The same override in the most common other languages of injection corpora.
  rule(
    'instruction_override_i18n',
    'all',
    String.raw`\b(?:ignorier(?:e|en)?|vergiss|vergessen\s+sie|missachte(?:n)?|ignorez|ignore[rz]?|oublie[zr]?|ignora|ignore|olvida|olvide|dimentica|ignorar)\s+(?:\S+\s+){0,4}?(?:anweisungen|befehle|auftr[äa]ge|alles|vorherigen|vorangehenden|obigen|gesagte|instructions\s+pr[ée]c[ée]dentes|tout\s+ce\s+qui|instrucciones|todo\s+lo\s+anterior|istruzioni)\b`,
  ),
  rule(
    'new_instructions',
    'context',
    String.raw`\b(?:your|the\s+following\s+are\s+your|here\s+are\s+your)\s+new\s+(?:instructions?|tasks?|goals?|objectives?|directives?|orders|missions?|rules|programming)\s*(?:is|are|follow|:)|\bnew\s+(?:instructions?|directives?|orders)\s+(?:follow|are\s+as\s+follows|:)|\b(?:begin|start|end)\s+(?:of\s+)?(?:new|updated|real|true|secret|out\s+of\s+date|old|outdated)\s+instructions\b|\bnow\s+(?:concentrate|focus)\s+on\s+(?:the|your)\s+new\s+(?:task|assignment)`,
  ),
  rule(
    'obey_embedded',
    'context',
    String.raw`\byou\s+(?:must|should|shall|are\s+(?:required|instructed|ordered)\s+to|have\s+to|need\s+to)\s+(?:\w+ly\s+|now\s+|always\s+){0,2}(?:adhere\s+to|follow|obey|comply\s+with|execute|carry\s+out|perform)\s+(?:the\s+|these\s+|this\s+|my\s+)?(?:following|new|below|updated|hidden|embedded|next)\s+(?:instructions?|commands?|orders|directives?|program|routine|pseudocode)\b`,
  ),
  rule(
    'task_preemption',
    'context',
    String.raw`\bbefore\s+(?:you\s+)?(?:can\s+|do\s+|start\s+|continue\s+)?(?:solve|solving|complete|completing|continue|continuing|answer|answering|finish|finishing|proceed(?:ing)?\s+with)\s+${GAP}(?:task|request|question|job)\b${SENTENCE}\b(?:do|perform|complete|execute)\s+the\s+following`,
  ),
  rule(
    'authority_message',
    'context',
    String.raw`\b(?:important|urgent|critical|priority|official)\s+(?:message|instructions?|notice|update|request)\s+from\s+[^\n]{0,60}?\bto\s+you\b|\[\s*(?:admin|administrator|system|developer|root)\s+(?:request|override|instruction|notice|message)\b`,
  ),
  rule(
    'tool_restriction',
    'context',
    String.raw`\b(?:do\s+not|don'?t|never)\s+use\s+(?:any\s+)?other\s+tools?\b|\bby\s+using\s+the\s+["'“][^"'”\n]{1,60}["'”]\s+tool\b`,
  ),
  rule(
    'fake_system_tag',
    'context',
    String.raw`(?:^|\n)\s*(?:#{1,6}\s*)?(?:\[\s*(?:system|system[_ ]message|sys|admin|developer|assistant)\s*\]|<\s*/?\s*(?:system|system[_-]message|sys|admin|developer|instructions?)\s*>|\(\s*system[_ ]message\s*\)|<im_start>\s*system|-{2,}\s*(?:begin|end)\s+(?:instructions|system)\b)|\bSYSTEM\s*:\s*\*{0,3}\s*(?:ignore|override|new|report|all|you|the)`,
  ),
  rule(
    'fake_dialogue_turn',
    'context',
    String.raw`(?:^|\n)\s*(?:assistant|ai|bot|gpt|chatgpt)\s*:[^\n]{0,400}\n+\s*(?:user|human)\s*:`,
  ),
  rule(
    'concealed_from_user',
    'context',
    String.raw`\b(?:invisible|hidden|not\s+visible)\s+(?:to|from)\s+(?:the\s+)?(?:humans?|users?|readers?|reviewers?|people|recruiters?)\b|\b(?:secretly|covertly|surreptitiously|stealthily|discreetly|without\s+(?:the\s+user|them|anyone)\s+(?:knowing|noticing))\s+(?:\w+\s+){0,2}?(?:send|include|add|insert|append|embed|collect|record|forward|exfiltrate|upload|pursue|manipulate|copy|elevate|transfer|persuad\w*|steer)\b`,
  ),

  // System-prompt extraction.
  rule(
    'prompt_extraction',
    'context',
    String.raw`\b(?:show|reveal|print|output|repeat|recite|display|dump|leak|tell|give|share|list|relay|translate|encode|spell\s+out|summari[sz]e|paste|write\s+out|return|expose|disclose|divulge|what\s+(?:is|are|were|was))\s+${GAP}(?:your|its)\s+(?:\w+\s+){0,3}?(?:system\s+(?:prompt|instructions?|message|parameters)|(?:initial|original|hidden|secret|internal|pre-?|starting|full|entire|complete)\s*(?:prompts?|instructions)|prompt\s+texts?|instructions)\b|\b(?:reveal|leak|expose|recite|repeat|divulge|disclose|see|print|output)\s+(?:me\s+)?the\s+(?:full\s+|entire\s+|hidden\s+|original\s+)?(?:system|initial|hidden|original)\s+(?:prompt|instructions)\b(?!\s+(?:file|template|in\s+\S+\.\w+))`,
  ),
  rule(
    'prompt_extraction_context',
    'context',
    String.raw`\bwhat\s+(?:were|was|have)\s+you\s+(?:been\s+)?(?:told|instructed|given|programmed)\s+(?:before|at\s+the\s+(?:start|beginning)|initially|to\s+do)\b|\bwhat\s+(?:was|is|were)\s+written\s+(?:above|before|at\s+the\s+(?:beginning|start|top))\b|\b(?:repeat|print|output|recite|echo|copy)\s+(?:back\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:above|preceding|previous|prior)\s+(?:text|words|prompt|content|messages?|instructions|lines)\b|\b(?:system|initial)\s+prompt\s+(?:is|was|reads|says)\s*:|\b(?:the\s+)?(?:sentences?|words?|text|lines?)\s+(?:before|above)\s+the\s+(?:text|line|sentence|message)\s*:`,
  ),
  // "Include this link/image in every reply": a standing instruction to plant content.
  rule(
    'plant_in_every_reply',
    'context',
    String.raw`\b(?:include|append|add|insert|embed|put|render|show)\b${SENTENCE}\b(?:links?|urls?|images?|hyperlinks?|markdown|<img|pixel)\b${SENTENCE}\b(?:every|each|all|any)\s+(?:future\s+|subsequent\s+)?(?:responses?|replies|answers?|messages?|outputs?)\b`,
  ),
  // Storing the attacker's instruction into long-term memory so it outlives the session.
  rule(
    'memory_persistence',
    'context',
    String.raw`\b(?:store|save|write|persist|remember|record|keep|add|put)\s+(?:\w+\s+){0,3}?(?:this|these|the\s+following|following|my)\s+(?:\w+\s+)?(?:instructions?|rules?|commands?|directives?|block)\b[^\n]{0,80}?\b(?:memory|memories|notes?\s+(?:tool|memory)|permanently|forever|long[\s-]term)\b|\bmemory\s+(?:tool|action)?\s*(?:\/\s*\w+\s+)?to\s+store\s+(?:this|the\s+following)\s+instructions?\b|\bunder\s+all\s+circumstances\b[^\n]{0,120}?\b(?:always|every\s+response)\b`,
  ),
];
