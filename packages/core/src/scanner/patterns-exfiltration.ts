/**
 * Exfiltration: reading credentials and sending data out. Shell commands are matched by what they
 * do (upload flags, download-and-execute, credential stores) rather than by the tool name, so the
 * everyday `curl https://api.example.com/health` or `ssh-keygen -f key` passes.
 */
import { compoundRule, near, rule, type ThreatRule } from './rule-kit';

/** Where collected data comes from: clipboard, keystrokes, process memory, browser stores, env. */
const COLLECT = String.raw`(?:get-clipboard|getclipboarddata|clipboard\.(?:paste|get)|pyperclip\.paste|xsel\s+(?:-\w+\s+)*--?(?:clipboard|b|o)|xclip\s+[^\n]{0,40}-o|pbpaste|pynput|keyboard\.(?:on_press|hook|record)|setwindowshookex|getasynckeystate|psutil\.(?:virtual_memory|process_iter|net_connections)|imagegrab|screenshot|os\.environ|process\.env\b|\$env:|printenv|/etc/(?:passwd|shadow)|cookies?(?:\.txt|\.pkl|\.sqlite|jar)|load_cookie|browser_cookie|login\s+data|pkg_resources\.working_set|platform\.(?:uname|node)|socket\.gethostname|getpass\.getuser|check_output\(|\/var\/log\/)`;
/** Where it goes: HTTP clients, mail, raw sockets, file transfer, message brokers. */
const SINK = String.raw`(?:requests\.(?:post|put|get|request)\s*\(|httpx\.(?:post|put|get)|urllib\.request\.urlopen|urlopen\s*\(|http\.client\.https?connection|aiohttp|fetch\s*\(\s*["'\x60]https?:|axios\.(?:post|put)|smtplib|yagmail|send-mailmessage|\.sendall\s*\(|\.sendto\s*\(|socket\.connect|\.connect\s*\(\s*\(\s*["']|ftplib|storbinary|paramiko|publish\.single|mqtt|invoke-webrequest|invoke-restmethod|\biwr\b|\birm\b|net\.webclient|uploadstring|uploadfile|curl\s|wget\s)`;

export const EXFILTRATION_RULES: readonly ThreatRule[] = [
  compoundRule('collect_and_send', 'strict', [near(COLLECT, SINK, 700, { barrier: '', either: true })]),
  compoundRule('upload_command', 'strict', [
    near(
      String.raw`\bcurl\b`,
      String.raw`(?:\s-F\s*["']?[\w.-]+=@|\s--form\s+["']?[\w.-]+=@|\s(?:-T|--upload-file)\s|\s(?:-d|--data(?:-binary|-raw|-urlencode)?)\s*["']?@(?!-)[\w./~$%-])`,
      512,
    ),
    String.raw`\bwget\b[^\n]{0,256}?--post-(?:data|file)|\b(?:invoke-webrequest|invoke-restmethod|iwr|irm)\b[^\n]{0,256}?(?:-method\s+["']?(?:post|put)|-infile\b)|\bsend-mailmessage\b[^\n]{0,256}?-attachments?\b|\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.-]+\s+\d{1,5}\s*<\s*\S|\bscp\s+(?:-\w+\s+)*\S*(?:\.ssh|\.aws|\.env|shadow|passwd|\.kube|credentials)\S*\s+\S+@`,
  ]),
  rule(
    'exfil_endpoint',
    'strict',
    String.raw`\b(?:discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/services|webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|burpcollaborator\.net|interact\.sh|oastify\.com|oast\.(?:fun|pro|live|site|online|me)|canarytokens|pastebin\.com/api|transfer\.sh|file\.io|api\.telegram\.org/bot)\b`,
  ),
  compoundRule('download_execute', 'strict', [
    near(
      String.raw`\b(?:curl|wget)\b`,
      String.raw`\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python\d?|perl|ruby|node|php)\b`,
      512,
      {
        barrier: '\n|',
      },
    ),
    String.raw`\b(?:iex|invoke-expression)\b[^\n]{0,64}?(?:\biwr\b|invoke-webrequest|\birm\b|invoke-restmethod|net\.webclient|downloadstring|downloaddata)|\.download(?:string|data|file)\s*\(\s*["']https?:|\bcertutil(?:\.exe)?\b[^\n]{0,64}?-urlcache|\bbitsadmin(?:\.exe)?\b[^\n]{0,64}?/(?:transfer|addfile|create)|\bstart-bitstransfer\b|\bmshta(?:\.exe)?\s+["']?(?:https?|vbscript|javascript):|\bregsvr32(?:\.exe)?\b[^\n]{0,64}?/i:\s*https?|\bdesktopimgdownldr\b|\bos\.popen\s*\(\s*["'](?:curl|wget|nc|bash)\b|\b(?:exec|eval)\s*\(\s*(?:requests\.get|urlopen|urllib\.request\.urlopen)\s*\(|\bpickle\.loads?\s*\(\s*(?:response|r|resp|requests\.get|urlopen)\b`,
  ]),
  // Code that fetches a remote payload and runs it (miners, droppers).
  compoundRule('fetch_and_run', 'strict', [
    near(
      String.raw`\b(?:requests\.get|httpx\.get|urlopen|urlretrieve|wget\.download|["']curl["']|["']wget["'])`,
      String.raw`\b(?:subprocess\.(?:call|run|popen|check_call|check_output)|os\.system|os\.popen|exec|eval)\s*\(`,
      600,
      { barrier: '' },
    ),
  ]),
  rule(
    'credential_dumping',
    'strict',
    String.raw`\b(?:mimikatz|sekurlsa|lsadump|pypykatz|lazagne|nanodump|mimipenguin|secretsdump|procdump(?:64)?(?:\.exe)?\s[^\n]{0,64}lsass|rdrleakdiag|dumpwcm|invoke-wcmdump|invoke-mimikatz|get-gpppassword|nppspy)\b|\blsass(?:\.exe|\.dmp)?\b[^\n]{0,128}?(?:minidump|dump|\.dmp\b)|\bminidump\b[^\n]{0,128}?\blsass|\bntds\.dit\b|\\config\\(?:sam|security|system)\b|\breg(?:\.exe)?\s+save\s+["']?hklm\\(?:sam|system|security)\b|\bharddiskvolumeshadowcopy|\bshadowcopy\s+call\s+create\b|\bvssadmin(?:\.exe)?\s+create\s+shadow\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\b(?:logins\.json|key[34]\.db|login\s+data|cookies\.binarycookies|binarycookies)\b|\bcpassword\b|\b(?:cmdkey\s+/list|vaultcmd\s+/list(?:creds)?)\b|/proc/(?:\$\w+|\d+|self)/(?:mem|maps|environ)\b|\bgcore\b[^\n]{0,64}?\$\w+|\b(?:find|cp|scp|rsync|tar|zip|base64|xxd|strings|grep)\b[^\n]{0,200}?\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.(?:azure/(?:accesstokens|msal_token_cache)|aws/credentials|config/gcloud/credentials|docker/config\.json|git-credentials)\b|\bfindstr\b[^\n]{0,64}?\bpassword\b|\breg\s+query\b[^\n]{0,128}?(?:putty\\sessions|winlogon|\\vnc|password)|\bwmic\b[^\n]{0,64}?shadowcopy|\bfind\b[^\n]{0,128}?-i?name\s+["']?[^"'\s]{0,40}(?:token|credential|secret|password|id_rsa|\.pem|\.kdbx|\.keychain)|\\appdata\\(?:local|roaming)\\microsoft\\(?:credentials|protect|vault)\b|\\(?:mozilla\\firefox\\profiles|google\\chrome\\user\s+data)\b|\bget-clipboard\s*\|\s*(?:iex|invoke-expression)\b`,
  ),
  rule(
    'email_exfil',
    'strict',
    String.raw`\b(?:send|e-?mail|forward|mail|share|transfer|leak|upload|post|cc|bcc|copy)\b[^\n]{0,160}?\b(?:contents?\s+of|all\s+(?:the\s+|my\s+|of\s+(?:the|my)\s+)?(?:unread\s+)?(?:files|e-?mails|messages|documents|data|records|contacts|attachments|notes|conversations)|passwords?|passcodes?|security\s+codes?|verification\s+codes?|2fa|otp|credentials|passport|credit\s+card|card\s+numbers?|ssn|social\s+security|bank\s+(?:account|details)|iban|api\s+keys?|access\s+tokens?|private\s+keys?|chat\s+history|conversation\s+history)\b[^\n]{0,160}?(?:\bto\b|\bat\b|:)\s*["'‘“]?[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
  ),
  compoundRule('send_to_site', 'strict', [
    near(
      String.raw`\b(?:send|post|upload|transmit|exfiltrate|forward|leak|submit|publish)\b`,
      String.raw`\s(?:to|at|into|on)\s+(?:the\s+)?(?:website|site|url|endpoint|server|webhook|page|address)\s+(?:www\.|https?://|[\w-]+\.[a-z]{2,}/)`,
      300,
    ),
  ]),
  rule(
    'markdown_beacon',
    'strict',
    String.raw`!\[[^\]\n]{0,200}\]\(\s*<?(?:https?:)?//[^)\s]{0,700}?(?:\{[^}\s]{1,60}\}|\$\{?\w+|<[\w ]{1,40}>|\[[A-Z_ ]{2,40}\]|%(?:data|secret|token|info)%)|<img\b[^>]{0,300}?\bsrc\s*=\s*["']?(?:https?:)?//[^"'\s>]{0,700}?(?:\{[^}\s]{1,60}\}|\$\{?\w+|<[\w ]{1,40}>|\[[A-Z_ ]{2,40}\])`,
  ),
  compoundRule('env_secret_network', 'strict', [
    near(
      String.raw`\$env:\w*(?:key|token|secret|password|passwd|credentials?)\b`,
      String.raw`(?:invoke-webrequest|invoke-restmethod|\biwr\b|\birm\b|net\.webclient|https?://)`,
      512,
      { either: true },
    ),
  ]),
  rule(
    'dns_icmp_exfil',
    'strict',
    String.raw`\b(?:dnscat2?|iodine|dnsexfil\w*|invoke-dnsexfiltrator|dns2tcp|icmpsh|ptunnel)\b|\bnet\.networkinformation\.ping\b[\s\S]{0,400}?\.send\s*\(|\bping\b[^\n]{0,64}?\s-p\s+[0-9a-f$]|\b(?:nslookup|dig|host)\s+[^\n]{0,32}?\$\(?\w+`,
  ),
  // Credentials from cloud metadata, shell histories and personal data stores; recursive searches
  // for secrets; mailbox forwarding; keystroke capture; sensitive paths copied to cloud storage.
  rule(
    'credential_sources',
    'strict',
    String.raw`\b169\.254\.169\.254\b[^\s]{0,120}(?:security-credentials|/iam/|identity|token)|\bmetadata\.google\.internal\b[^\s]{0,120}(?:token|service-accounts)|\b(?:cat|less|more|head|tail|type|strings|grep|cp|scp|base64|get-content|gc)\b[^\n]{0,200}(?:\.(?:bash|zsh|sh|python|mysql|psql|node_repl|rediscli)_history\b|consolehost_history\.txt)|(?:library/messages/chat\.db|notestore\.sqlite|library/safari/history\.db|places\.sqlite|formhistory\.sqlite|[\\/]web\s+data\b|[\\/]local\s+state\b|library/keychains/|login\.keychain)`,
  ),
  compoundRule('secret_search', 'strict', [
    near(
      String.raw`\b(?:grep|egrep|rg|ag|ack)\b[^\n|]{0,40}\s-[a-z]{0,4}r[a-z]{0,4}\b`,
      String.raw`\b(?:password|passwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|credential)s?\b`,
      160,
    ),
    String.raw`\bselect-string\b[^\n]{0,160}\b(?:password|passwd|secret|api[_-]?key|credential)s?\b`,
  ]),
  rule(
    'mailbox_exfil',
    'strict',
    String.raw`\bnew-inboxrule\b[^\n]{0,200}-(?:forwardto|redirectto|forwardasattachmentto)\b|\bset-mailbox\b[^\n]{0,200}-(?:forwardingsmtpaddress|forwardingaddress)\b|\boutlook\.application\b[\s\S]{0,300}\bgetnamespace\s*\(\s*["']mapi`,
  ),
  rule(
    'keystroke_capture',
    'strict',
    String.raw`\bWH_KEYBOARD(?:_LL)?\b|\bgetasynckeystate\b[\s\S]{0,300}\b(?:write|append|open\s*\(|add-content|out-file|log)\b|\bpynput\.keyboard\b[\s\S]{0,300}\blistener\b[\s\S]{0,300}\b(?:write|open\s*\(|log)|\bkeylogger\b`,
  ),
  compoundRule('cloud_exfil', 'strict', [
    near(
      String.raw`\b(?:rclone\s+(?:copy|sync|move)|aws\s+s3\s+(?:cp|sync|mv)|gsutil\s+(?:-m\s+)?(?:cp|rsync|mv)|az\s+storage\s+(?:blob|file)\s+upload(?:-batch)?|azcopy\s+(?:copy|sync)|mega-put|megaput|dropbox_uploader)\b`,
      String.raw`(?:~|\$home|/home/|/root\b|/etc/|\.ssh\b|\.aws\b|\.env\b|\.kube\b|credentials|passwd|shadow|id_rsa|\\users\\|%userprofile%|\$env:userprofile|\.gnupg)`,
      200,
    ),
  ]),
  // Operating-system credential stores and ticket theft beyond the classic dumpers.
  rule(
    'os_credential_access',
    'strict',
    String.raw`\bntdsutil\b[^\n]{0,160}\bifm\b|\bcomsvcs(?:\.dll)?\b[^\n]{0,120}\bminidump\b|\bdiskshadow(?:\.exe)?\b[^\n]{0,160}(?:\s/s\s|\bexpose\b)|\besentutl(?:\.exe)?\b[^\n]{0,160}\b(?:ntds|sam|system|webcache)\b|\bdefaultpassword\b|\bget-storedcredential\b|\b(?:rubeus|kerberoast\w*|invoke-kerberoast|getuserspns|get-npusers|asreproast\w*)\b|\.kirbi\b|\bcryptunprotectdata\b|\bdpapi::|\bsharpdpapi\b|\bunshadow\b|\bhashcat\b[^\n]{0,120}\s-m\s|\bjohn\b[^\n]{0,80}(?:--wordlist|--format=|shadow)`,
  ),
  // Local files sent to a remote host by code or by a file-transfer client.
  rule(
    'file_upload',
    'strict',
    String.raw`\b(?:requests|httpx|session|s)\.(?:post|put)\s*\([^\n]{0,200}\b(?:files|data)\s*=\s*(?:\{[^}\n]{0,100})?open\s*\(|\btftp\b[^\n]{0,80}\s(?:put|-p)\b|\bftp\s+-[a-z]{0,4}s:|\bcurl\b[^\n]{0,200}\sftps?://[^\n]{0,200}\s(?:-T|--upload-file)\b`,
  ),
  // Gathering documents and keys into one place before sending them: search by sensitive type, copy.
  rule(
    'data_staging',
    'strict',
    String.raw`\bget-childitem\b[^\n]{0,200}-include\b[^\n]{0,120}\*\.(?:docx?|xlsx?|pdf|pst|ost|kdbx|pem|key|pfx|ppk)\b[^\n]{0,200}\bcopy-item\b|\bfind\s+[~/$][^\n]{0,200}-i?name\s+["']?\*\.(?:docx?|xlsx?|pdf|pst|kdbx|pem|key|pfx|ppk)\b[^\n]{0,200}-exec\s+(?:cp|tar|zip|curl|scp)\b`,
  ),
];
