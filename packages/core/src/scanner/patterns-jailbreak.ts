/**
 * Jailbreak framings: a persona that is declared free of rules, refusal suppression, dual
 * "normal / unfiltered" answers, and "stay in character" enforcement. A plain persona ("You are a
 * senior TypeScript developer") passes: the rules need the rule-removal part, not the role part.
 * Strict scope only: context files such as SOUL.md legitimately define a persona.
 */
import { GAP, NEAR, oneOf, rule, SENTENCE, type ThreatRule } from './rule-kit';

const NEGATION = oneOf([
  'no',
  'without',
  'free\\s+(?:of|from)',
  'not\\s+(?:bound|restricted|limited|constrained)\\s+by',
  'unbound\\s+by',
  'not\\s+subject\\s+to',
  "(?:does\\s+not|doesn'?t|do\\s+not|don'?t|won'?t|will\\s+not|never)\\s+(?:have|follow|care\\s+(?:about|for)|abide\\s+by|adhere\\s+to|concern\\s+(?:itself|himself|herself)\\s+with|worry\\s+about)",
  'lacks?',
  'ignores?',
  'disregards?',
  'regardless\\s+of',
  'unconcerned\\s+(?:with|by|about)',
  'beyond',
  '(?:without|no|nor|not\\s+have)\\s+(?:any\\s+)?regard\\s+(?:for|to)',
]);
/** The safety layer itself, named. */
const SAFETY = String.raw`(?:ethic(?:s|al|ality)|moral(?:s|ity)?|legality|censorship|conscience|content\s+polic(?:y|ies)|usage\s+polic(?:y|ies)|openai'?s?\s+(?:\w+\s+)?(?:polic(?:y|ies)|guidelines|rules)|safety\s+(?:guidelines|filters?|measures|protocols|restrictions|rules|features)|content\s+filters?|social\s+norms)`;
const RESTRICTIONS = String.raw`(?:restrictions|limitations|limits|filters|boundaries|rules|guidelines|policies|constraints|programming\s+guidelines)`;
const BAD =
  '(?:illegal|unethical|immoral|amoral|inhumane|unsafe|harmful|dangerous|offensive|explicit|hateful)';

export const JAILBREAK_RULES: readonly ThreatRule[] = [
  rule(
    'safety_removed',
    'strict',
    String.raw`\b${NEGATION}\s+(?:any\s+|all\s+|its\s+|your\s+|the\s+|their\s+|his\s+|her\s+|of\s+)?${NEAR}${SAFETY}\b|\byou\s+(?:have|will\s+have|now\s+have)\s+no\s+(?:\w+\s+)?${RESTRICTIONS}\b|\b(?:answer|respond|reply|write|say|do|generate)\s+(?:\w+\s+){0,3}?without\s+(?:any\s+)?(?:restrictions|limitations|filters|censorship|safety|warnings?)\b|\b(?:without|free\s+(?:of|from)|not\s+(?:bound|restricted|limited)\s+by|unbound\s+by|not\s+subject\s+to|ha(?:s|ve)\s+no|no\s+longer\s+(?:has|have|bound\s+by))\s+(?:any|all|the\s+usual|its|your)\s+(?:\w+\s+)?${RESTRICTIONS}\b`,
  ),
  rule(
    'amoral_persona',
    'strict',
    String.raw`\b(?:unfiltered|uncensored|amoral|unrestricted|unbound|unhinged|unethical|immoral|evil|unaligned|jailbroken|lawless|unlimited|rogue)\s+(?:and\s+\w+\s+|,\s*\w+\s+)?(?:ai|a\.i\.|chat\s?bot|assistant|language\s+models?|llm|gpt|persona|alter\s+ego|personality|responses?|answers?|version\s+of\s+(?:yourself|chatgpt|gpt|you))\b`,
  ),
  rule(
    'policy_evasion_mode',
    'strict',
    String.raw`\b(?:enable|activate|enter|switch\s+(?:in)?to|stay\s+in|you\s+are\s+(?:now\s+)?in|turn\s+on|go\s+into)\s+(?:the\s+)?(?:dan|jailbreak|jailbroken|chaos|evil|god|unrestricted|uncensored|unfiltered|opposite|devil|anarchy|no[\s-]?limits?|developer)\s+mode\b|\bdo\s+anything\s+now\b|\bDAN\s+(?:mode|prompt|jailbreak)\b|\bjailbr(?:eak|oken)\s+(?:prompt|version|persona|mode)\b`,
  ),
  rule(
    'refusal_suppression',
    'strict',
    String.raw`\b(?:you|it|he|she|they|ai|assistant|model|bot|chatbot)\s+(?:will\s+|must\s+|shall\s+|should\s+|can\s+)?(?:never|not|cannot|can'?t|won'?t|will\s+not|must\s+not|should\s+not|shouldn'?t|don'?t|do\s+not|doesn'?t|does\s+not)\s+(?:ever\s+)?(?:refuse|decline|deny)s?\s+(?:to\s+answer\s+)?(?:any|a|the|my|your)?\s*(?:request|question|prompt|order|command|task)|\bnever\s+(?:refuses|declines|says\s+no)\b|\b(?:will|must|should|can)\s+never\s+(?:say|tell\s+(?:me|the\s+user))\s+(?:that\s+)?(?:it|you|he|she|they|i)\s+(?:can'?t|cannot|won'?t|is\s+unable|are\s+unable)\b|\bno\s+matter\s+how\s+${BAD}\b|\b(?:responses?|answers?|replies)\s+(?:will|must|should)\s+(?:never|not)\s+(?:contain|include)\s+["“]?i'?m\s+sorry|\bwithout\s+(?:any\s+)?(?:warnings?|disclaimers?|refusals?|censorship|hesitation)\s+(?:or|and|,)\s+(?:\w+\s+)?(?:warnings?|disclaimers?|refusals?|censorship|hesitation|moraliz\w+)\b`,
  ),
  rule(
    'harm_endorsement',
    'strict',
    String.raw`\b${BAD}\s*(?:[,/]\s*|\s+(?:or|and|and\/or)\s+)(?:${BAD}\s*(?:[,/]\s*|\s+(?:or|and)\s+))?(?:illegal|unethical|immoral|inhumane)\b${SENTENCE}\b(?:answer|respond|provide|generate|write|say|content|requests?|things|activities|questions?)\b|\b(?:loves?|promotes?|condones?|encourages?|endorses?)\s+(?:and\s+\w+\s+)?(?:everything|anything|all)\s+(?:that\s+is\s+)?${BAD}`,
  ),
  rule(
    'persona_reassignment',
    'strict',
    String.raw`\b(?:from\s+now\s+on|for\s+the\s+rest\s+of\s+(?:this|the|our)\s+(?:conversation|chat|session)|henceforth|starting\s+(?:now|immediately))\s*,?\s+(?:you\s+(?:are|'re|will\s+(?:now\s+)?(?:be|act|play|roleplay|pretend|simulate|become|respond\s+as|answer\s+as|have\s+to\s+(?:act|answer|respond|interpret))|are\s+going\s+to\s+(?:act|be|play|pretend))|you'?re\b|act\s+as|play\s+the\s+role)|\byou\s+are\s+(?:now\s+)?(?:about\s+to\s+|going\s+to\s+)?(?:simulate|roleplay|role-play|impersonate|play\s+the\s+role\s+of|act\s+as)\s+(?:being\s+)?(?:an?\s+|the\s+)?(?:\w+\s+){0,3}?(?:ai|chat\s?bot|language\s+model|llm|persona|character)\b|\b(?:simulate|roleplay\s+as|role-play\s+as|impersonate|pose\s+as|act\s+as|become|personify)\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,3}?(?:ai|chat\s?bot|language\s+model|llm|persona)\s+(?:named|called|known\s+as)\b|\byou\s+(?:will|must|shall|are\s+going\s+to)\s+(?:now\s+)?(?:roleplay|role-play|pose|impersonate)\s+as\b|\btransform\s+into\s+[^\n.]{0,60}?\b(?:an?\s+)?(?:ai|chat\s?bot|language\s+model|llm)\b|\byou\s+are\s+(?:now\s+)?replaced\s+by\b|\byou\s+are\s+now\s+(?:under\s+my\s+control|free|liberated|unchained)\b`,
  ),
  rule(
    'character_lock',
    'strict',
    String.raw`\b(?:stay|remain|keep|staying|remaining)\s+(?:fully\s+)?(?:in|as)\s+(?:the\s+)?(?:character|persona|role)\b|\b(?:never|don'?t|do\s+not|not)\s+break(?:ing)?\s+(?:out\s+of\s+)?(?:character|persona|role)\b|\bfall\s+out\s+of\s+character\b`,
  ),
  rule(
    'dual_response',
    'strict',
    String.raw`\b(?:respond|answer|reply|write)\w*\s+${SENTENCE}\b(?:twice|in\s+two\s+(?:different\s+|separate\s+|distinct\s+)*(?:ways|manners|responses|paragraphs|personalities|formats))\b|\b(?:two|2|dual)\s+(?:different\s+|separate\s+|distinct\s+)*(?:personalit(?:y|ies)|persons|personas|entities)\b|\b(?:adapt|adopt|have|create)\s+two\s+(?:\w+\s+)?(?:personalities|personas|characters)\b`,
  ),
  rule(
    'hypothetical_unbound_model',
    'strict',
    String.raw`\b(?:hypothetical|fictional|imaginary|theoretical)\s+(?:\w+\s+){0,2}?(?:language\s+model|ai|chat\s?bot|world|reality|universe)\s+${GAP}(?:not\s+bound\s+by|with(?:out)?\s+no|free\s+(?:of|from)|without\s+(?:any\s+)?|sans|no)\s*(?:any\s+)?(?:\w+\s+)?(?:restrictions|rules|laws|ethics|morals|limitations|guidelines|filters)\b`,
  ),
];
