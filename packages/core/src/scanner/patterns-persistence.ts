/**
 * Persistence: ways to come back. Autostart locations (registry Run keys, startup folders,
 * services, scheduled tasks, launchd, systemd, rc scripts, shell profiles, PAM, preload), new or
 * elevated accounts, and remote shells. Reading or listing these places passes; writing to them,
 * or the one-line shells that need no writing, is blocked.
 */
import { compoundRule, near, rule, type ThreatRule } from './rule-kit';

/** A shell write: redirect, tee, in-place edit, copy, link, or echo into. */
const WRITE = String.raw`(?:>>?\s*|\btee\s+(?:-a\s+)?|\bsed\s+-i\s*(?:["'][^"']{0,4}["']\s+)?(?:["'][^\n]{0,200}?["']\s+)?|\b(?:cp|mv|ln\s+-s\w*|install|touch)\s+(?:-\w+\s+)*(?:\S+\s+)?|add-content\s+(?:-path\s+)?|set-content\s+(?:-path\s+)?|out-file\s+(?:-filepath\s+)?)`;

export const PERSISTENCE_RULES: readonly ThreatRule[] = [
  rule(
    'registry_autorun',
    'strict',
    String.raw`\\currentversion\\(?:run|runonce|runonceex|runservices(?:once)?|policies\\explorer\\run|winlogon|image\s+file\s+execution\s+options|appcompatflags|explorer\\(?:user\s+)?shell\s+folders|windows\\load|silentprocessexit)\b|\\control\\(?:lsa|print\\(?:monitors|environments)|session\s+manager|bootverificationprogram|terminal\s+server|networkprovider|safeboot)\b|\bappcertdlls\b|\bappinit_dlls\b|\\classes\\clsid\\\{|\\classes\\(?:exefile|ms-settings|mscfile)\\shell\b|\\terminal\s+server\s+client\\default\\addins\b|\\software\\microsoft\\(?:netsh|command\s+processor)\b`,
  ),
  rule(
    'startup_folder',
    'strict',
    String.raw`\\start\s+menu\\programs\\startup\b|\\microsoft\\windows\\start\s+menu\\programs\\startup|\bshell:(?:common\s+)?startup\b|/library/startupitems/|/library/launchdaemons/\S+\.plist|\bloginhook\b|com\.apple\.loginwindow|${WRITE}[^\n]{0,200}?(?:~|\$home|/users/\w+)?/library/launchagents/`,
  ),
  rule(
    'scheduled_task',
    'strict',
    String.raw`\bschtasks(?:\.exe)?\s+/create\b|\b(?:register-scheduledtask|new-scheduledtask(?:action|trigger)|ps_scheduledtask)\b|\bat(?:\.exe)?\s+(?:\\\\\S+\s+)?\d{1,2}:\d{2}\s+(?:/\w+(?::\S+)?\s+)*["']?(?:cmd|powershell|c:\\|\S+\.(?:exe|bat|ps1|vbs))|\bsystemd-run\b[^\n]{0,128}?--on-(?:calendar|active|boot|unit-active)|\bcrontab\s+(?:-u\s+\w+\s+)?(?!-[lre]\b)(?:/tmp/|\S+\.(?:txt|cron|sh))|\becho\b[^\n]{0,200}?(?:\*\s+){4}\*[^\n]{0,200}?\|\s*crontab\b|/var/spool/cron/|/etc/crontab\b|\bperiodic\b[^\n]{0,64}?/etc/periodic/|${WRITE}\s*/etc/(?:periodic|anacrontab)`,
  ),
  rule(
    'service_install',
    'strict',
    String.raw`\bsc(?:\.exe)?\s+(?:\\\\\S+\s+)?(?:create|config)\s+\S+\s+[^\n]{0,200}?binpath\s*=|\bnew-service\b[^\n]{0,200}?-binarypathname\b|\bset-servicebinarypath\b|${WRITE}\s*["']?(?:/etc/systemd/system|/lib/systemd/system|/usr/lib/systemd/system|~/\.config/systemd/user|\$home/\.config/systemd/user|/etc/init\.d|/etc/rc\d?\.d|/usr/local/etc/rc\.d|/etc/rc\.local|/etc/init)/?|\bchkconfig\s+--add\b|\bsystemctl\s+(?:--user\s+)?enable\s+(?:--now\s+)?\S+\.timer\b|\b(?:kextload|kmutil\s+load|insmod)\s+\S|\bpnputil(?:\.exe)?\s+/add-driver\b`,
  ),
  rule(
    'wmi_persistence',
    'strict',
    String.raw`\b(?:__eventfilter|commandlineeventconsumer|activescripteventconsumer|__filtertoconsumerbinding|mofcomp(?:\.exe)?)\b`,
  ),
  rule(
    'profile_persistence',
    'strict',
    String.raw`${WRITE}\s*["']?(?:~|\$home|\$\{home\}|/root|/home/\w+|/etc)?/?(?:\S*/)?(?:\.bashrc|\.zshrc|\.bash_profile|\.bash_login|\.bash_logout|\.profile|\.zprofile|\.zshenv|\.zlogin|\.cshrc|\.tcshrc|\.kshrc|bash\.bashrc|profile\.d/\S*|environment|zshenv|zprofile)\b|\badd-content\s+(?:-path\s+)?\$profile\b|\$profile\b[^\n]{0,64}?(?:add-content|set-content|out-file|>>)|\bPROMPT_COMMAND\s*=|\btrap\s+(?:"[^"\n]{1,300}"|'[^'\n]{1,300}')\s+(?:debug|exit|err|return)\b`,
  ),
  rule(
    'preload_hijack',
    'strict',
    String.raw`/etc/ld\.so\.preload\b|\bexport\s+LD_PRELOAD\s*=|\bDYLD_INSERT_LIBRARIES\s*=|\b(?:usercustomize|sitecustomize)\.py\b|\bsite-packages/\S+\.pth\b|\bgetusersitepackages\b[\s\S]{0,300}?\.pth\b`,
  ),
  rule(
    'auth_tamper',
    'strict',
    String.raw`/etc/pam\.d/|\bpam_(?:exec|succeed_if|permit)\.so\b|\bsudoers\.d/|\bvisudo\b[^\n]{0,64}?nopasswd|\\control\\lsa\b[^\n]{0,200}?(?:authentication\s+packages|notification\s+packages|security\s+packages)|\bchmod\s+(?:[ugo]*\+s|[246]7[0-7]{2})\s+\S|\bsetcap\s+\S*cap_setuid`,
  ),
  rule(
    'account_creation',
    'strict',
    String.raw`\bnet(?:1)?(?:\.exe)?\s+user\s+(?:/add\s+\S|\S+\s+\S+\s+/add\b|\S+\s+/add\b)|\bnet(?:1)?(?:\.exe)?\s+(?:local)?group\s+["']?(?:administrators|domain\s+admins|remote\s+desktop\s+users)["']?\s+\S+\s+/add\b|\b(?:new-localuser|new-aduser|add-localgroupmember|add-adgroupmember)\b|\bdscl\s+\.\s+-(?:create|append)\s+/(?:users|groups)/|\bdseditgroup\b[^\n]{0,64}?\s-a\s|\bsysadminctl\s+-adduser\b|\bpw\s+(?:useradd|usermod|mod\s+user)\b|\buseradd\b[^\n]{0,128}?\s(?:-r|--system)\b[^\n]{0,128}?-s\s+/bin/\w*sh|\bopenssl\s+passwd\b[^\n]{0,128}?\|\s*(?:pw|chpasswd|usermod)`,
  ),
  rule(
    'accessibility_backdoor',
    'strict',
    String.raw`\b(?:sethc|utilman|osk|magnify|narrator|displayswitch|atbroker)(?:\.exe)\b[^\n]{0,200}?(?:cmd\.exe|copy|mklink|takeown|icacls|debugger)|\b(?:copy|move|mklink|takeown|icacls|ren(?:ame)?)\b[^\n]{0,200}?\b(?:sethc|utilman|osk|magnify|narrator|displayswitch|atbroker)\.exe\b|\bassoc\s+\.\w+\s*=|\bftype\s+\w+\s*=`,
  ),
  rule(
    'remote_shell',
    'strict',
    String.raw`\bfsockopen\s*\(|\btcpsocket\.new\s*\(|\bio::socket::inet\b|\bnet\.sockets\.tcpclient\b|/inet/tcp/|/dev/(?:tcp|udp)/|\bsocat\b[^\n]{0,200}?\b(?:exec|system):|\b(?:nc|ncat|netcat)\b[^\n]{0,128}?\s(?:-[a-z]*[ec]\s|--exec|--sh-exec|--lua-exec)|\b(?:ba|z|k)?sh\s+-i\b[^\n]{0,64}?[<>]&|\bpty\.spawn\s*\(|\bos\.dup2\s*\(|\b(?:invoke-conptyshell|invoke-powershelltcp|powercat|nishang)\b|\bsocket_create\s*\([^\n]{0,200}?socket_(?:bind|connect)|\bspawn\s*\(\s*["'](?:ba)?sh["']|\$_(?:get|post|request|cookie)\s*\[[^\]\n]{1,40}\][^\n]{0,120}?\b(?:system|exec|shell_exec|passthru|popen|proc_open|eval|assert)\s*\(|\b(?:system|exec|shell_exec|passthru|popen|proc_open|eval|assert)\s*\(\s*\$_(?:get|post|request|cookie)\b|\$_(?:get|post|request)\s*\[["']?cmd["']?\]`,
  ),
  rule(
    'hijack_binary',
    'strict',
    String.raw`\bcopy-item\b[^\n]{0,200}?\.dll["']?\s+(?:-destination\s+)?["']?c:\\windows\\system32\b|\bcopy\b[^\n]{0,200}?\.dll\s+["']?c:\\windows\\system32\b|\bnetsh\s+(?:add\s+helper|interface\s+portproxy\s+add)\b|\btakeown\b[^\n]{0,100}?system32`,
  ),
  // More autostart points, by mechanism: registry hooks beyond Run keys, login items, device
  // rules, browser extensions, shortcuts, server modules, startup hooks of interpreters.
  rule(
    'autostart_hook',
    'strict',
    String.raw`\\accessibility\\ats\\|\\active\s+setup\\installed\s+components\\|\buserinitmprlogonscript\b|\\control\s+panel\\desktop\b[^\n]{0,120}\bscrnsave\.exe\b|\\software\\classes\\[^\\\s]{1,64}\\shell\\open\\command\b|\\explorer\\browser\s+helper\s+objects\\|\\office\s+test\\special\\perf\b|\\print\s+processors\\|\\terminal\s+server\\wds\\rdpwd\b|\\policies\\system\b[^\n]{0,64}\bshell\b|\bmake\s+(?:new\s+)?login\s+item\b|\bsfltool\s+add|\bSMLoginItemSetEnabled\b|/(?:etc|lib)/udev/rules\.d/\S{1,128}[^\n]{0,200}\bRUN\+?=|\bRUN\+=\s*["']?/|--load-extension[= ]|\bextensioninstallforcelist\b|\bappcmd(?:\.exe)?\s+install\s+module\b|\bnew-webglobalmodule\b|\bPYTHONSTARTUP\s*=|site-packages[\\/]\S{0,128}\.pth\b|\bgetsitepackages\b[\s\S]{0,300}\.pth\b|\bsecedit(?:\.exe)?\s+/(?:configure|import)\b`,
  ),
  compoundRule('shortcut_autostart', 'strict', [
    near(String.raw`\bwscript\.shell\b`, String.raw`\bcreateshortcut\b`, 400, { barrier: '' }),
    String.raw`\.lnk["']?\s[^\n]{0,200}\\(?:start\s+menu\\programs\\)?startup\b`,
  ]),
  rule(
    'remote_access_enable',
    'strict',
    String.raw`\bfdenytsconnections\b[^\n]{0,120}(?:/d\s+0\b|-value\s+0\b|=\s*0\b)|\benable-psremoting\b|\bnetsh\s+advfirewall\s+firewall\s+add\s+rule\b[^\n]{0,200}\blocalport\s*=\s*(?:3389|5985|5986|22)\b|\bwinrm\s+quickconfig\b|\bpsexec(?:64)?(?:\.exe)?["']?\s+(?:-\w+\s+){0,4}-s\b|\bmodprobe\s+(?:-\w+\s+){0,4}(?:\.{0,2}/)\S|\btimestamp_timeout\s*=\s*-|!tty_tickets\b`,
  ),
];
