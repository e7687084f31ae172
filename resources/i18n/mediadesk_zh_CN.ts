<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <source>Name</source>
        <translation type="vanished">名称</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation type="vanished">基础 URL</translation>
    </message>
    <message>
        <source>API key variable</source>
        <translation type="vanished">API 密钥环境变量</translation>
    </message>
    <message>
        <source>API key keyring entry</source>
        <translation type="vanished">API 密钥的密钥环条目</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation type="vanished">并发数</translation>
    </message>
    <message>
        <source>Requests per minute</source>
        <translation type="vanished">每分钟请求数</translation>
    </message>
    <message>
        <source>Adaptive</source>
        <translation type="vanished">自适应</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="vanished">类型</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation type="vanished">端点</translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="vanished">模型</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation type="vanished">流式输出</translation>
    </message>
    <message>
        <source>Longest answer (chars)</source>
        <translation type="vanished">最长回答（字符）</translation>
    </message>
    <message>
        <source>Site</source>
        <translation type="vanished">站点</translation>
    </message>
    <message>
        <source>Chat URL</source>
        <translation type="vanished">聊天 URL</translation>
    </message>
    <message>
        <source>Instructions</source>
        <translation type="vanished">指令</translation>
    </message>
    <message>
        <source>Needs an empty prompt</source>
        <translation type="vanished">需要空指令</translation>
    </message>
    <message>
        <source>Timeout (s)</source>
        <translation type="vanished">超时（秒）</translation>
    </message>
    <message>
        <source>Longest run (s)</source>
        <translation type="vanished">最长运行时间（秒）</translation>
    </message>
    <message>
        <source>Longest wait (s)</source>
        <translation type="vanished">最长等待时间（秒）</translation>
    </message>
    <message>
        <source>Most pending tasks</source>
        <translation type="vanished">最多等待中任务数</translation>
    </message>
    <message>
        <source>Fallback profiles</source>
        <translation type="vanished">后备配置</translation>
    </message>
    <message>
        <source>Rule reply</source>
        <translation type="vanished">规则回复</translation>
    </message>
    <message>
        <source>Web profile</source>
        <translation type="vanished">网页配置</translation>
    </message>
    <message>
        <source>Enabled</source>
        <translation type="vanished">启用</translation>
    </message>
    <message>
        <source>Browser profile folder</source>
        <translation type="vanished">浏览器配置文件夹</translation>
    </message>
    <message>
        <source>Login user variable</source>
        <translation type="vanished">登录用户名环境变量</translation>
    </message>
    <message>
        <source>Login password variable</source>
        <translation type="vanished">登录密码环境变量</translation>
    </message>
    <message>
        <source>Login user keyring entry</source>
        <translation type="vanished">登录用户名的密钥环条目</translation>
    </message>
    <message>
        <source>Login password keyring entry</source>
        <translation type="vanished">登录密码的密钥环条目</translation>
    </message>
    <message>
        <source>Login cooldown (s)</source>
        <translation type="vanished">登录冷却时间（秒）</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation type="vanished">端点</translation>
    </message>
    <message>
        <source>Profiles</source>
        <translation type="vanished">配置</translation>
    </message>
    <message>
        <source>Accounts</source>
        <translation type="vanished">账号</translation>
    </message>
    <message>
        <source>Test</source>
        <translation type="vanished">测试</translation>
    </message>
</context>
<context>
    <name>AccountCheckDialog</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="56"/>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="57"/>
        <source>needs attention</source>
        <translation>需要处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="58"/>
        <source>logged out</source>
        <translation>已登出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="59"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="66"/>
        <source>the site&apos;s stream</source>
        <translation>网站的数据流</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="67"/>
        <source>the page</source>
        <translation>页面</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="68"/>
        <source>no answer</source>
        <translation>没有回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="75"/>
        <source>{site} (no version)</source>
        <translation>{site}（无版本）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="76"/>
        <source>{site} {version}</source>
        <translation>{site} {version}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="82"/>
        <source>not verified on the live site yet</source>
        <translation>尚未在真实网站上验证</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="84"/>
        <source>verified for an older adapter version; check again</source>
        <translation>验证的是较旧的适配器版本；请重新检查</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="85"/>
        <source>verified on {host} on {date}</source>
        <translation>已于 {date} 在 {host} 上验证</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="101"/>
        <source>{adapter}: {verified}</source>
        <translation>{adapter}：{verified}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="124"/>
        <source>Check all accounts</source>
        <extracomment>An account&apos;s check ended (its verification may have changed). An account&apos;s check begins (its name).</extracomment>
        <translation>检查所有账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="132"/>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="132"/>
        <source>Adapter</source>
        <translation>适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="132"/>
        <source>Keys</source>
        <translation>键</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="132"/>
        <source>Answer source</source>
        <translation>回答来源</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="132"/>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="133"/>
        <source>Verified</source>
        <translation>验证</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="145"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="147"/>
        <source>Stop checking: the account being checked takes tasks again</source>
        <translation>停止检查：正在检查的账号将重新接收任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="149"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="168"/>
        <source>Checking the accounts needs the console&apos;s event loop</source>
        <translation>检查账号需要控制台的事件循环</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="185"/>
        <source>Cancelled: {n} account(s) checked.</source>
        <translation>已取消：已检查 {n} 个账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="191"/>
        <source>The checks stopped: {why}</source>
        <translation>检查已停止：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="198"/>
        <source>No enabled web account to check.</source>
        <translation>没有可检查的已启用网页账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="201"/>
        <source>Done: {ok} of {n} account(s) ok.</source>
        <translation>完成：{n} 个账号中 {ok} 个正常。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="226"/>
        <source>Checking {account}… waiting for its running task {ids} to end (it takes no new task meanwhile)</source>
        <translation>正在检查 {account}… 等待其正在执行的任务 {ids} 结束（在此期间不接收新任务）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="229"/>
        <source>Checking {account}… starting the check</source>
        <translation>正在检查 {account}… 开始检查</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="240"/>
        <source>Checking {account}… {progress}</source>
        <translation>正在检查 {account}… {progress}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/account_check.py" line="268"/>
        <source>{verdict}: {detail}</source>
        <translation>{verdict}：{detail}</translation>
    </message>
</context>
<context>
    <name>AccountExceptionsBox</name>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="65"/>
        <source>Accounts that need a person</source>
        <extracomment>The screenshot preview&apos;s largest size (it opens full size on a click). The number of accounts that wait for a person changed. A resolution ended: (account, solved). Opens the screenshot full size (the desktop&apos;s image viewer); replaceable in tests.</extracomment>
        <translation>需要人工处理的账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="69"/>
        <source>Account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="69"/>
        <source>What the site showed</source>
        <translation>网站显示的内容</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="83"/>
        <source>Open the screenshot full size</source>
        <translation>查看原尺寸截图</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="86"/>
        <source>Open the browser to solve it</source>
        <translation>打开浏览器处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="89"/>
        <source>Opens this account&apos;s browser visibly on its own profile at the chat page. Solve the check there; MediaDesk notices when it is gone, closes the window and the account takes tasks again.</source>
        <translation>用该账号自己的配置文件以可见窗口打开聊天页面。请在那里完成验证；验证消失后 MediaDesk 会自动察觉、关闭窗口，账号重新接收任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="146"/>
        <source>Select an account first.</source>
        <translation>请先选择一个账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="153"/>
        <source>This needs the console&apos;s event loop.</source>
        <translation>此操作需要控制台的事件循环。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="155"/>
        <source>Opening the browser of {account} at the chat page: solve the check there. The window closes by itself once the check is gone; closing it yourself gives up.</source>
        <translation>正在打开 {account} 的浏览器并进入聊天页面：请在那里完成验证。验证消失后窗口会自动关闭；自行关闭窗口表示放弃。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="179"/>
        <source>{account}: the check is gone; the account takes tasks again.</source>
        <translation>{account}：验证已消失，账号重新接收任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="182"/>
        <source>{account}: the browser could not be opened: {error}</source>
        <translation>{account}：无法打开浏览器：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="185"/>
        <source>{account} still needs a person: the check was not solved (the window was closed, or the check is still shown).</source>
        <translation>{account} 仍需人工处理：验证未完成（窗口已关闭，或验证仍在显示）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/account_exceptions.py" line="200"/>
        <source>(no screenshot)</source>
        <translation>（无截图）</translation>
    </message>
</context>
<context>
    <name>AccountsPanel</name>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="131"/>
        <source>Account</source>
        <extracomment>How much of a running task&apos;s prompt the disable question quotes. (task id, start of its prompt) of each task the account is running. The question as shown. Quiet hours: when the account&apos;s next window opens (None inside one, or without any). Asked when disabling an account that has a running task; the account takes no new task while it is open (``Scheduler.hold_account``). Replaceable (tests, or a main window that wants its own wording). The disable question open now (kept up to date as its task ends).</extracomment>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="131"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="131"/>
        <source>Enabled</source>
        <translation>启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="131"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="132"/>
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="132"/>
        <source>Adapter</source>
        <translation>适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="148"/>
        <source>Check all accounts…</source>
        <extracomment>&quot;Check all accounts…&quot;: every web account&apos;s adapter checked on the live site (the window&apos;s dialog).</extracomment>
        <translation>检查所有账号…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="150"/>
        <source>Check every web account&apos;s site adapter on the live site, one after another</source>
        <translation>在真实网站上逐个检查每个网页账号的网站适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="250"/>
        <source>Your switch: when off, no new task is sent to this account. MediaDesk never changes it by itself.</source>
        <translation>由您控制的开关：关闭后不再向此账号派发新任务。MediaDesk 不会自行更改它。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="252"/>
        <source>Enable account {name}</source>
        <translation>启用账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="256"/>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="293"/>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="281"/>
        <source>earlier: {error}</source>
        <translation>此前：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="283"/>
        <source>Details: {detail}</source>
        <translation>详情：{detail}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="290"/>
        <source>Logging in is not available in this window</source>
        <translation>此窗口中无法登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="292"/>
        <source>Open this account&apos;s browser to log in</source>
        <translation>打开此账号的浏览器进行登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="293"/>
        <source>Logging in…</source>
        <translation>正在登录…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="361"/>
        <source>Could not change {name}: {error}</source>
        <translation>无法更改 {name}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="370"/>
        <source>{id} (“{prompt}”)</source>
        <translation>{id}（“{prompt}”）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="371"/>
        <source>{name} is running {tasks}. It takes no new task while you decide, and none once disabled. What about the running task?</source>
        <translation>{name} 正在运行 {tasks}。在您做出决定期间以及停用之后，都不会再向它派发新任务。正在运行的任务要如何处理？</translation>
    </message>
    <message>
        <source>Disable account</source>
        <translation type="vanished">停用账号</translation>
    </message>
    <message>
        <source>{name} is running a task. No new task will be sent to it. What about the running task?</source>
        <translation type="vanished">{name} 正在运行一个任务。之后不会再向它派发新任务。正在运行的任务要如何处理？</translation>
    </message>
    <message>
        <source>Let the running task finish</source>
        <translation type="vanished">让正在运行的任务完成</translation>
    </message>
    <message>
        <source>Cancel it</source>
        <translation type="vanished">取消该任务</translation>
    </message>
    <message>
        <source>Keep enabled</source>
        <translation type="vanished">保持启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="400"/>
        <source>Cannot log in: the event loop is not running</source>
        <translation>无法登录：事件循环未运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/accounts_panel.py" line="427"/>
        <source>Login for {name} failed: {error}</source>
        <translation>{name} 登录失败：{error}</translation>
    </message>
</context>
<context>
    <name>AdapterCheckDialog</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="58"/>
        <source>found</source>
        <extracomment>A screenshot&apos;s preview size in the report (it opens full size on its button).</extracomment>
        <translation>找到</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="59"/>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="60"/>
        <source>ambiguous</source>
        <translation>不唯一</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="61"/>
        <source>covered</source>
        <translation>被遮挡</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="62"/>
        <source>invalid selector</source>
        <translation>选择器无效</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="63"/>
        <source>not shown</source>
        <translation>未显示</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="71"/>
        <source>Opening the site… {url}</source>
        <translation>正在打开网站… {url}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="75"/>
        <source>Sending the test prompt…</source>
        <translation>正在发送测试提示…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="77"/>
        <source>The page is not ready: {why}</source>
        <translation>页面未就绪：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="80"/>
        <source>Browser: {message}</source>
        <translation>浏览器：{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="87"/>
        <source>Completion decided by the site&apos;s own stream: it ended, then the answer stopped changing.</source>
        <translation>由网站自身的数据流判定完成：数据流结束，随后回答不再变化。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="92"/>
        <source>Completion decided by the page: no stream was seen; the answer stopped changing for the adapter&apos;s settle_ms.</source>
        <translation>由页面判定完成：未发现数据流；回答在适配器的 settle_ms 时间内不再变化。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="98"/>
        <source>Completion: {reason}</source>
        <translation>完成判定：{reason}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="101"/>
        <source>No answer: completion was not decided.</source>
        <translation>没有回答：未判定完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="110"/>
        <source>Adapter check — {account}</source>
        <translation>适配器检查 — {account}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="124"/>
        <source>Key</source>
        <extracomment>Opens a screenshot full size (the desktop&apos;s image viewer); replaceable in tests.</extracomment>
        <translation>键</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="124"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="124"/>
        <source>Selector</source>
        <translation>选择器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="124"/>
        <source>Seen</source>
        <translation>所见</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="133"/>
        <source>how completion was decided, the answer, notes</source>
        <translation>完成的判定方式、回答、备注</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="138"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="159"/>
        <source>OK: the adapter fits the page.</source>
        <translation>正常：适配器与页面相符。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="161"/>
        <source>Not OK: {n} key(s) do not fit.</source>
        <translation>不正常：有 {n} 个键不相符。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="164"/>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="165"/>
        <source>{site} on account {account} ({url})</source>
        <translation>{site}，账号 {account}（{url}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="193"/>
        <source>Answer source: the site&apos;s own stream, read by the adapter&apos;s [stream] decoder</source>
        <translation>回答来源：网站自己的回答流（由适配器的 [stream] 解码器读取）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="195"/>
        <source>Answer source: the page&apos;s answer element</source>
        <translation>回答来源：页面上的回答元素</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="196"/>
        <source>network: {event}</source>
        <translation>网络：{event}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="197"/>
        <source>note: {note}</source>
        <translation>备注：{note}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="199"/>
        <source>test prompt: {prompt}</source>
        <translation>测试提示：{prompt}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="201"/>
        <source>answer ({n} chars):</source>
        <translation>回答（{n} 个字符）：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="212"/>
        <source>(the screenshot cannot be shown)</source>
        <translation>（无法显示截图）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="220"/>
        <source>Open full size</source>
        <translation>查看原尺寸</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="268"/>
        <source>Fix the problems first: {first}</source>
        <extracomment>Called when a check has ended (what it verified is shown anew).</extracomment>
        <translation>请先修复问题：{first}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="274"/>
        <source>Check adapter is for web profiles and their accounts</source>
        <translation>“检查适配器”仅适用于网页配置及其账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="279"/>
        <source>No account uses profile {name}: add one under Accounts to check its site</source>
        <translation>没有账号使用配置 {name}：请在“账号”中添加一个账号后再检查其网站</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="287"/>
        <source>Check adapter needs the console&apos;s event loop; open Setup from the console</source>
        <translation>“检查适配器”需要控制台的事件循环；请从控制台打开设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="297"/>
        <source>Checking the site adapter on account {account}…</source>
        <translation>正在用账号 {account} 检查网站适配器…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="303"/>
        <source>Checking the adapter on {account}…</source>
        <translation>正在用 {account} 检查适配器…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="333"/>
        <source>Account {account} is busy running task {ids}; the check waits until it has ended (the account takes no new task meanwhile).</source>
        <translation>账号 {account} 正在执行任务 {ids}；检查将等待该任务结束（在此期间该账号不接收新任务）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="341"/>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="344"/>
        <source>Adapter check: OK</source>
        <translation>适配器检查：正常</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="346"/>
        <source>Adapter check: not OK (see the report)</source>
        <translation>适配器检查：不正常（见报告）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/adapter_checker.py" line="350"/>
        <source>Adapter check failed: {why}</source>
        <translation>适配器检查失败：{why}</translation>
    </message>
</context>
<context>
    <name>AdapterDropDialog</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="66"/>
        <source>Site adapter</source>
        <extracomment>A dropped file with this suffix is a site adapter.</extracomment>
        <translation>网站适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="67"/>
        <source>{file} is not a usable site adapter, so nothing was installed:
{problems}</source>
        <translation>{file} 不是可用的网站适配器，因此未安装任何内容：
{problems}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="88"/>
        <source>Site adapter — {name}</source>
        <translation>网站适配器 — {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="105"/>
        <source>{file} is a valid site adapter: {name}, version {version}.</source>
        <extracomment>Where it was installed (None: not yet). The last check&apos;s result (an ``AdapterCheckResult``) and its account, for the full report. Whether the last check passed (None: no check ran to its end). Asked before an existing file is replaced: (its path) -&gt; replace it? Replaceable (tests).</extracomment>
        <translation>{file} 是有效的网站适配器：{name}，版本 {version}。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="106"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="108"/>
        <source>Installed, it replaces the bundled adapter of that name.</source>
        <translation>安装后，它将取代同名的内置适配器。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="109"/>
        <source>It is installed in {folder}; profiles naming site {name} use it from their lanes&apos; next start.</source>
        <translation>它将安装到 {folder}；指定网站 {name} 的配置从其通道下次启动起使用它。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="120"/>
        <source>None: install without a check</source>
        <translation>不检查：直接安装</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="123"/>
        <source>Check it on account:</source>
        <translation>用以下账号检查：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="135"/>
        <source>Install anyway</source>
        <translation>仍然安装</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="139"/>
        <source>Show the report</source>
        <translation>查看报告</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="143"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="160"/>
        <source>Check, then install</source>
        <translation>检查后安装</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="160"/>
        <source>Install without a check</source>
        <translation>不检查直接安装</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="174"/>
        <source>The check needs the console&apos;s event loop</source>
        <translation>检查需要控制台的事件循环</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="180"/>
        <source>Checking {name} on account {account}…</source>
        <translation>正在用账号 {account} 检查 {name}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="182"/>
        <source>Checking on {account}: waiting for its browser and the test prompt&apos;s answer…</source>
        <translation>正在用 {account} 检查：等待其浏览器和测试提示的回答…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="195"/>
        <source>The check could not run: {why}</source>
        <translation>检查无法运行：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="202"/>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="240"/>
        <source>OK: the adapter fits the page.</source>
        <translation>正常：适配器与页面相符。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="206"/>
        <source>Not OK: {n} key(s) do not fit.</source>
        <translation>不正常：有 {n} 个键不相符。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="208"/>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="213"/>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="217"/>
        <source>Fix the file and drop it again, or install it anyway.</source>
        <translation>请修正文件后重新拖入，或仍然安装。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="228"/>
        <source>Not installed: {path} is kept as it is.</source>
        <translation>未安装：{path} 保持不变。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="233"/>
        <source>Not installed: {why}</source>
        <translation>未安装：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="240"/>
        <source>Installed as {path}.</source>
        <translation>已安装为 {path}。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="243"/>
        <source>Installed as {path}, without a check.</source>
        <translation>已安装为 {path}，未经检查。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="245"/>
        <source>Installed anyway as {path}; the check did not pass.</source>
        <translation>已仍然安装为 {path}；检查未通过。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="249"/>
        <source>Replace the adapter?</source>
        <translation>替换适配器？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/adapter_drop.py" line="250"/>
        <source>{path} exists. Replace it with the dropped file?</source>
        <translation>{path} 已存在。要用拖入的文件替换它吗？</translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="110"/>
        <source>Submit batch</source>
        <extracomment>Staged rows -&gt; line -&gt; what that row repeats (a finished task of the workspace, a row above); called on the parse&apos;s worker thread. A preview was (re)built for the current source (also after a file-level error).</extracomment>
        <translation>提交批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="120"/>
        <source>From file</source>
        <translation>从文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="121"/>
        <source>Paste prompts</source>
        <translation>粘贴提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="125"/>
        <source>Show errors only</source>
        <translation>仅显示错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="191"/>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="193"/>
        <source>No file chosen</source>
        <translation>未选择文件</translation>
    </message>
    <message>
        <source>JSONL or CSV with the fields profile, prompt and optionally id, system, priority, route_key. You can also drop a file onto this window.</source>
        <translation type="vanished">JSONL 或 CSV 文件，包含字段 profile、prompt，可选 id、system、priority、route_key。也可以把文件拖放到此窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="247"/>
        <source>One prompt per line</source>
        <translation>每行一个提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="254"/>
        <source>Higher runs first</source>
        <translation>数值越大越先运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="256"/>
        <source>Empty: the profile&apos;s default instructions</source>
        <translation>留空：使用配置的默认指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="228"/>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="270"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="130"/>
        <source>Skip them</source>
        <translation>跳过</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="130"/>
        <source>Run them again</source>
        <translation>再运行一次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="131"/>
        <source>Reuse the earlier answers (nothing sent, no cost)</source>
        <translation>沿用先前的回答（不发送，无费用）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="133"/>
        <source>Rows with the same profile, instructions and prompt as a finished task or a row above. A repeat of a row above is run only by “Run them again”.</source>
        <translation>与已完成的任务或上方某行的配置、指令和提示词都相同的行。与上方某行重复的行只有选择“再运行一次”时才会运行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="195"/>
        <source>JSONL, CSV or XLSX with the fields profile (or profiles, n), prompt (or a template and its columns) and optionally id, system, priority, route_key. You can also drop a file onto this window.</source>
        <translation>JSONL、CSV 或 XLSX 文件，包含字段 profile（或 profiles、n）、prompt（或模板及其各列），可选 id、system、priority、route_key。也可以把文件拖放到此窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="214"/>
        <source>Every other column of the file fills the template&apos;s {placeholders}</source>
        <translation>文件的其他各列填入模板的 {placeholders} 占位符</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="218"/>
        <source>From the file (profile or profiles column)</source>
        <translation>取自文件（profile 或 profiles 列）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="223"/>
        <source>Sheet</source>
        <translation>工作表</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="227"/>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="239"/>
        <source>None: the file&apos;s prompt or template column</source>
        <translation>无：使用文件的 prompt 或 template 列</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="271"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="272"/>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="448"/>
        <source>Open batch file</source>
        <translation>打开批次文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="449"/>
        <source>Batch files (*.jsonl *.ndjson *.json *.csv *.xlsx);;All files (*)</source>
        <translation>批次文件 (*.jsonl *.ndjson *.json *.csv *.xlsx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Batch files (*.jsonl *.ndjson *.json *.csv);;All files (*)</source>
        <translation type="vanished">批次文件 (*.jsonl *.ndjson *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="458"/>
        <source>This profile sends the prompt only (need_empty_prompt is on): instructions are not sent.</source>
        <translation>此配置只发送提示词（need_empty_prompt 已开启）：不会发送指令。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="522"/>
        <source>{done} rows repeat finished tasks, {above} repeat a row above:</source>
        <translation>{done} 行与已完成的任务重复，{above} 行与上方某行重复：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="536"/>
        <source>Parsing…</source>
        <translation>正在解析…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="538"/>
        <source>Nothing staged yet</source>
        <translation>尚未暂存任何内容</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="540"/>
        <source>{valid} valid, {errors} errors, read as {encoding}</source>
        <translation>{valid} 条有效，{errors} 条错误，按 {encoding} 读取</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="543"/>
        <source>{valid} valid, {errors} errors</source>
        <translation>{valid} 条有效，{errors} 条错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="552"/>
        <source>Submit 1 task</source>
        <translation>提交 1 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_dialog.py" line="554"/>
        <source>Submit {n} tasks</source>
        <translation>提交 {n} 个任务</translation>
    </message>
</context>
<context>
    <name>BatchesView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="84"/>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="84"/>
        <source>Submitted</source>
        <translation>提交时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="84"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="84"/>
        <source>Total</source>
        <translation>总数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="84"/>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="85"/>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="85"/>
        <source>Succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="85"/>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="85"/>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="86"/>
        <source>ETA / done</source>
        <translation>预计剩余 / 完成时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="86"/>
        <source>Tokens</source>
        <translation>令牌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="86"/>
        <source>Spent</source>
        <translation>花费</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="96"/>
        <source>No batch yet: submit one with Ctrl+O or drop a JSONL/CSV file on the window.</source>
        <translation>还没有批次：按 Ctrl+O 提交一个，或将 JSONL/CSV 文件拖放到窗口上。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="102"/>
        <source>ETA: time until the batch&apos;s last queued task is done, from the lanes&apos; recent run times and what is queued ahead of it (p50 = median case, p90 = slow case).</source>
        <translation>预计剩余：根据各通道最近的运行耗时以及排在前面的任务，估算此批次最后一个排队任务完成所需的时间（p50 = 中位情况，p90 = 较慢情况）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="170"/>
        <source>(no batch)</source>
        <translation>（无批次）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="194"/>
        <source>{mark}{prompt} in / {mark}{completion} out</source>
        <translation>输入 {mark}{prompt} / 输出 {mark}{completion}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="201"/>
        <source>no price</source>
        <translation>无价格</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="205"/>
        <source>done at {t}</source>
        <translation>完成于 {t}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="208"/>
        <source>— (no lane can take it)</source>
        <translation>—（没有通道能接收）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="210"/>
        <source>after {need} finished runs of {group} ({have} so far)</source>
        <translation>{group} 完成 {need} 次运行后给出（目前 {have} 次）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="212"/>
        <source>— (no lane has reported yet)</source>
        <translation>—（还没有通道报告）</translation>
    </message>
    <message>
        <source>— (no finished run yet)</source>
        <translation type="vanished">—（尚无已完成的运行）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/batches_view.py" line="213"/>
        <source>p50 {p50} ({at}), p90 {p90}</source>
        <translation>p50 {p50}（{at}），p90 {p90}</translation>
    </message>
</context>
<context>
    <name>BrowserPage</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="45"/>
        <source>empty: the browser found on this computer</source>
        <translation>留空：使用本机找到的浏览器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="46"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="48"/>
        <source>Choose the browser&apos;s program (Google Chrome, Microsoft Edge, Chromium or Brave); it is checked before it is used</source>
        <translation>选择浏览器程序（Google Chrome、Microsoft Edge、Chromium 或 Brave）；使用前会先检查</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="53"/>
        <source>The web accounts run in a Chromium-family browser: Google Chrome, Microsoft Edge, Chromium or Brave. Leave the program empty to use the one found here.</source>
        <translation>网页账号在 Chromium 系浏览器中运行：Google Chrome、Microsoft Edge、Chromium 或 Brave。浏览器程序留空即使用本机找到的浏览器。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="61"/>
        <source>In use</source>
        <translation>正在使用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="62"/>
        <source>Browser program</source>
        <translation>浏览器程序</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="92"/>
        <source>{path} (set here: [browser] executable)</source>
        <translation>{path}（在此设置：[browser] executable）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="94"/>
        <source>Playwright&apos;s Chromium: {path}</source>
        <translation>Playwright 的 Chromium：{path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="95"/>
        <source>{name}: {path} (found in {where})</source>
        <translation>{name}：{path}（在 {where} 中找到）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="100"/>
        <source>Choose the browser&apos;s program</source>
        <translation>选择浏览器程序</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="120"/>
        <source>{path} is not a file: choose the browser&apos;s program itself.</source>
        <translation>{path} 不是文件：请选择浏览器程序本身。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="123"/>
        <source>{path} is not an executable program: choose the browser&apos;s program, not a shortcut or a document.</source>
        <translation>{path} 不是可执行程序：请选择浏览器程序，而不是快捷方式或文档。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="127"/>
        <source>Checking {path}…</source>
        <translation>正在检查 {path}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="135"/>
        <source>Checking a browser needs the console&apos;s event loop; open Setup from the console.</source>
        <translation>检查浏览器需要控制台的事件循环；请从控制台打开设置。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="141"/>
        <source>{path} did not say which browser it is: not a Chromium-family browser MediaDesk can drive.</source>
        <translation>{path} 没有说明它是哪种浏览器：不是 MediaDesk 能驱动的 Chromium 系浏览器。</translation>
    </message>
    <message>
        <source>{path} did not say which browser it is (asked with --version): not a Chromium-family browser MediaDesk can drive.</source>
        <translation type="vanished">{path} 没有说明它是哪种浏览器（用 --version 询问）：不是 MediaDesk 能驱动的 Chromium 系浏览器。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="144"/>
        <source>{path} is {version}, not a Chromium-family browser: choose Google Chrome, Microsoft Edge, Chromium or Brave.</source>
        <translation>{path} 是 {version}，不是 Chromium 系浏览器：请选择 Google Chrome、Microsoft Edge、Chromium 或 Brave。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/browser_page.py" line="148"/>
        <source>{version}: the web accounts use it once saved.</source>
        <translation>{version}：保存后网页账号将使用它。</translation>
    </message>
</context>
<context>
    <name>ChartsView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="108"/>
        <source>Last 5 minutes</source>
        <extracomment>(light, dark) per lane, in order of appearance; the total is drawn in the text colour. A refresh was drawn (tests, bench). seconds per refresh: the store read (worker thread) and the drawing (GUI thread)</extracomment>
        <translation>最近 5 分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="108"/>
        <source>Last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="108"/>
        <source>Last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="113"/>
        <source>All lanes</source>
        <translation>所有通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="129"/>
        <source>Range:</source>
        <translation>范围：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="132"/>
        <source>Lane:</source>
        <translation>通道：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="183"/>
        <source>Throughput (tasks finished per minute)</source>
        <translation>吞吐量（每分钟完成的任务数）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="184"/>
        <source>tasks/min</source>
        <translation>任务数/分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="192"/>
        <source>Run-time distribution (successes)</source>
        <translation>运行耗时分布（成功的任务）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="193"/>
        <source>run time (s, log scale)</source>
        <translation>运行耗时（秒，对数刻度）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="194"/>
        <source>tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="205"/>
        <location filename="../../mediadesk/ui/panels/charts.py" line="369"/>
        <source>all lanes</source>
        <translation>所有通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="382"/>
        <source>{lane}: {ok} done, {bad} failed</source>
        <translation>{lane}：成功 {ok}，失败 {bad}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="384"/>
        <source> · run time p50 {p50}, p90 {p90}, max {mx}</source>
        <translation> · 运行耗时 p50 {p50}，p90 {p90}，最长 {mx}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/charts.py" line="388"/>
        <source>No lane finished a task in this range.</source>
        <translation>此时间范围内没有通道完成任务。</translation>
    </message>
</context>
<context>
    <name>CloseQuestion</name>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="66"/>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="51"/>
        <source>{running} running, {pending} pending.</source>
        <extracomment>What would be opened.
----------
&quot;Keep running in the tray&quot; is offered (the system has a tray).</extracomment>
        <translation>{running} 个运行中，{pending} 个待处理。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="53"/>
        <source>Quit: running tasks go back to the queue and resume at the next start.</source>
        <translation>退出：运行中的任务回到队列，下次启动时继续。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="56"/>
        <source>Keep running in the tray: the window hides and the lanes keep working.</source>
        <translation>在托盘中继续运行：窗口隐藏，通道继续工作。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="107"/>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="63"/>
        <source>Work in progress</source>
        <translation>有任务正在进行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="141"/>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="66"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/close_question.py" line="67"/>
        <source>Keep running in the tray</source>
        <translation>在托盘中继续运行</translation>
    </message>
</context>
<context>
    <name>ComparisonView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="84"/>
        <source>All tasks</source>
        <extracomment>Characters of an answer&apos;s first line shown in its cell (the whole answer: hover, or select it). Where a cell keeps its task id.</extracomment>
        <translation>所有任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="86"/>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="279"/>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="89"/>
        <source>Keep the selected answer: the other answers of its prompt are no longer kept (double-click an answer does the same; on a kept answer it takes the mark off)</source>
        <translation>保留所选回答：同一提示词的其他回答不再保留（双击回答效果相同；对已保留的回答则取消标记）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="94"/>
        <source>Batch:</source>
        <translation>批次：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="114"/>
        <source>Send one prompt to several profiles (a batch row&apos;s &quot;profiles&quot;), or several samples (&quot;n&quot;), to compare their answers here.</source>
        <translation>把一个提示词发给多个配置（批次行的 &quot;profiles&quot;），或取多个样本（&quot;n&quot;），即可在这里对比它们的回答。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="228"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="255"/>
        <source>★ kept</source>
        <translation>★ 已保留</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/comparison_view.py" line="279"/>
        <source>Unkeep</source>
        <translation>取消保留</translation>
    </message>
</context>
<context>
    <name>ConfigIssues</name>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="32"/>
        <source>config file not found</source>
        <extracomment>The translation context of every template. Every template the loader uses (the test checks the loader against this list).</extracomment>
        <translation>找不到配置文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="33"/>
        <source>cannot read config: {error}</source>
        <translation>无法读取配置：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="34"/>
        <source>not UTF-8 text ({reason} at byte {pos})</source>
        <translation>不是 UTF-8 文本（第 {pos} 字节处：{reason}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="35"/>
        <source>invalid TOML: {error}</source>
        <translation>TOML 格式无效：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="37"/>
        <source>unknown key (check the spelling; see the README for all keys)</source>
        <translation>未知的键（请检查拼写；全部键名见 README）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="38"/>
        <source>Field required</source>
        <translation>缺少必填项</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="39"/>
        <source>Input should be greater than or equal to {ge}</source>
        <translation>值应大于或等于 {ge}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="40"/>
        <source>Input should be greater than {gt}</source>
        <translation>值应大于 {gt}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="41"/>
        <source>Input should be less than or equal to {le}</source>
        <translation>值应小于或等于 {le}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="42"/>
        <source>Input should be less than {lt}</source>
        <translation>值应小于 {lt}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="43"/>
        <source>Input should be {expected}</source>
        <translation>值应为 {expected}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="44"/>
        <source>{choices} or {last}</source>
        <translation>{choices} 或 {last}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="45"/>
        <source>{message}</source>
        <translation>{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="47"/>
        <source>expected {expected}, got {got}{hint}</source>
        <translation>应为{expected}，实际是{got}{hint}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="48"/>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="49"/>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="50"/>
        <source>true or false</source>
        <translation> true 或 false</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="51"/>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="52"/>
        <source>a path (a string)</source>
        <translation>路径（字符串）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="53"/>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="54"/>
        <source>a table</source>
        <translation>表</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="55"/>
        <source>a boolean ({value})</source>
        <translation>布尔值（{value}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="56"/>
        <source>an integer ({value})</source>
        <translation>整数（{value}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="57"/>
        <source>a float ({value})</source>
        <translation>浮点数（{value}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="58"/>
        <source>a string (&quot;{value}&quot;)</source>
        <translation>字符串（&quot;{value}&quot;）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="59"/>
        <source>a {type}</source>
        <translation> {type} 类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="60"/>
        <source> (write the number without quotes)</source>
        <translation>（数字不要加引号）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="61"/>
        <source> (write {value} without quotes)</source>
        <translation>（{value} 不要加引号）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="62"/>
        <source> (write true or false)</source>
        <translation>（请写 true 或 false）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="63"/>
        <source> (write a whole number without a decimal point)</source>
        <translation>（请写不带小数点的整数）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="65"/>
        <source>use 1-64 letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, starting with a letter or digit</source>
        <translation>请使用 1-64 个字母、数字、“.”、“_”或“-”，并以字母或数字开头</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="66"/>
        <source>must be the NAME of an environment variable (the key itself never goes in the config)</source>
        <translation>必须是环境变量的名称（密钥本身绝不写进配置）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="68"/>
        <source>must be the NAME of an environment variable (the value itself never goes in the config)</source>
        <translation>必须是环境变量的名称（值本身绝不写进配置）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="70"/>
        <source>must be a keyring entry &apos;service:username&apos; (the value never goes in the config)</source>
        <translation>必须是密钥环条目“service:username”（值绝不写进配置）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="72"/>
        <source>min_calls ({min_calls}) must not exceed window ({window})</source>
        <translation>min_calls（{min_calls}）不能大于 window（{window}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="73"/>
        <source>{domain}: requests per minute must be a number &gt;= 0</source>
        <translation>{domain}：每分钟请求数必须是 &gt;= 0 的数字</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="74"/>
        <source>base_url must start with http:// or https://</source>
        <translation>base_url 必须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="75"/>
        <source>stale_after_s ({stale_after_s}) must be greater than interval_s ({interval_s})</source>
        <translation>stale_after_s（{stale_after_s}）必须大于 interval_s（{interval_s}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="76"/>
        <source>{key} belongs to the endpoint {endpoint}; remove it here</source>
        <translation>{key} 属于端点 {endpoint}；请从这里删除</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="77"/>
        <source>an api profile needs model</source>
        <translation>api 配置需要 model</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="78"/>
        <source>an api profile needs {keys} (or endpoint and model)</source>
        <translation>api 配置需要 {keys}（或 endpoint 加 model）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="79"/>
        <source>{key} is for web profiles only</source>
        <translation>{key} 只用于 web 配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="80"/>
        <source>{key} is for api profiles only</source>
        <translation>{key} 只用于 api 配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="81"/>
        <source>a web profile needs site (the name of a site adapter)</source>
        <translation>web 配置需要 site（站点适配器的名称）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="82"/>
        <source>web profiles run exactly one task per account (a chat account allows one generation at a time); remove concurrency and add accounts instead</source>
        <translation>web 配置每个账号只运行一个任务（聊天账号同一时间只允许一次生成）；请删除 concurrency，改为添加账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="85"/>
        <source>fallback must not name the profile itself</source>
        <translation>fallback 不能指向配置自身</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="86"/>
        <source>stored credentials need both a user and a password: add {keys}</source>
        <translation>保存的凭据需要同时有用户名和密码：请添加 {keys}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="88"/>
        <source>{chars} cannot be in a file or folder name on Windows</source>
        <translation>Windows 的文件或文件夹名称中不能有 {chars}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="89"/>
        <source>must not end with a dot or a space (Windows drops them from file and folder names)</source>
        <translation>不能以点或空格结尾（Windows 会从文件和文件夹名称中去掉它们）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="91"/>
        <source>{name} is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension): no file or folder can have it; choose another name</source>
        <translation>{name} 在 Windows 上是设备名（CON、PRN、AUX、NUL、COM1-9、LPT1-9，带任何扩展名都一样）：文件或文件夹都不能用它；请换一个名称</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="94"/>
        <source>use HH:MM-HH:MM ranges separated by commas, e.g. &quot;22:00-07:00&quot; or &quot;09:00-12:00,14:00-18:00&quot;</source>
        <translation>请使用以逗号分隔的 HH:MM-HH:MM 时段，例如 &quot;22:00-07:00&quot; 或 &quot;09:00-12:00,14:00-18:00&quot;</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="96"/>
        <source>{part} is not a range HH:MM-HH:MM (e.g. &quot;22:00-07:00&quot;)</source>
        <translation>{part} 不是 HH:MM-HH:MM 格式的时段（例如 &quot;22:00-07:00&quot;）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="97"/>
        <source>{time} is not a time of day (00:00-23:59, or 24:00 as an end)</source>
        <translation>{time} 不是一天中的时间（00:00-23:59，结束时间可写 24:00）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="98"/>
        <source>{part} is empty (start equals end); for all day leave active_hours out</source>
        <translation>{part} 为空（开始等于结束）；全天可用请不要写 active_hours</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="100"/>
        <source>currency must be a three-letter code such as &quot;USD&quot;, &quot;EUR&quot; or &quot;CNY&quot;</source>
        <translation>currency 必须是三个字母的货币代码，例如 &quot;USD&quot;、&quot;EUR&quot; 或 &quot;CNY&quot;</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="101"/>
        <source>a budget names exactly one of endpoint or profile</source>
        <translation>预算必须且只能指定 endpoint 或 profile 之一</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="102"/>
        <source>a budget has exactly one of max_cost (money) or max_tokens</source>
        <translation>预算必须且只能设置 max_cost（金额）或 max_tokens 之一</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="104"/>
        <source>duplicate profile name {name}</source>
        <translation>配置名称 {name} 重复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="105"/>
        <source>duplicate endpoint name {name}</source>
        <translation>端点名称 {name} 重复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="106"/>
        <source>duplicate account name {name}</source>
        <translation>账号名称 {name} 重复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="107"/>
        <source>no endpoint named {name} ({known})</source>
        <translation>没有名为 {name} 的端点（{known}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="108"/>
        <source>none defined</source>
        <translation>一个也未定义</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="109"/>
        <source>no profile named {name}</source>
        <translation>没有名为 {name} 的配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="110"/>
        <source>profile {name} is an api profile; accounts are for web</source>
        <translation>配置 {name} 是 api 配置；账号只用于 web 配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="111"/>
        <source>{name} and {other} ({other_key}) differ only by case: on Windows and macOS these are the same folder (the account&apos;s browser profile); rename one</source>
        <translation>{name} 与 {other}（{other_key}）只有大小写不同：在 Windows 和 macOS 上它们是同一个文件夹（账号的浏览器配置文件夹）；请改掉其中一个</translation>
    </message>
    <message>
        <location filename="../../mediadesk/config/messages.py" line="113"/>
        <source>{name} and {other} ({other_key}) differ only by case: on Windows and macOS these are the same site adapter file; write one the same way in both</source>
        <translation>{name} 与 {other}（{other_key}）只有大小写不同：在 Windows 和 macOS 上它们是同一个站点适配器文件；请两处写法保持一致</translation>
    </message>
</context>
<context>
    <name>Console</name>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="63"/>
        <source>{path}: config file not found (pass --config FILE, or try the demo with --demo)</source>
        <translation>{path}：找不到配置文件（请用 --config FILE 指定，或用 --demo 试用演示）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="153"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="224"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="231"/>
        <source>MediaDesk: cannot open the workspace</source>
        <translation>MediaDesk：无法打开工作区</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="178"/>
        <source>MediaDesk: configuration error</source>
        <translation>MediaDesk：配置错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="207"/>
        <source>Starting the MediaDesk demo</source>
        <translation>正在启动 MediaDesk 演示</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="210"/>
        <source>Starting the demo…</source>
        <translation>正在启动演示…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="230"/>
        <source>Demo: the accounts ({accounts}) are logging in and their browsers warming up; the API lane is ready.</source>
        <extracomment>The &quot;what is starting&quot; window of a session still starting (closed when its main window shows).</extracomment>
        <translation>演示：账号（{accounts}）正在登录，浏览器正在预热；API 通道已就绪。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/start.py" line="234"/>
        <source>Demo ready: both lanes can take tasks. Submit the staged batch to see them work.</source>
        <translation>演示已就绪：两条通道都可以接任务了。提交已暂存的批次即可看到它们工作。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="125"/>
        <source>a console is already open for {dir}; switched to it.</source>
        <translation>{dir} 的控制台已经打开，已切换到该窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="124"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="203"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="215"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="263"/>
        <source>MediaDesk is already running</source>
        <extracomment>Another start of the console on this data folder asked for the window. What :meth:`start` is doing now, in words (the demo&apos;s simulators, the database...).</extracomment>
        <translation>MediaDesk 已在运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="70"/>
        <source>--db {db}: {error}</source>
        <translation>--db {db}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="205"/>
        <source>Opening the database and starting the lanes…</source>
        <translation>正在打开数据库并启动通道…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="212"/>
        <source>MediaDesk: database in use</source>
        <translation>MediaDesk：数据库正被占用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="218"/>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="266"/>
        <source>MediaDesk: cannot start</source>
        <translation>MediaDesk：无法启动</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="221"/>
        <source>MediaDesk: database error</source>
        <translation>MediaDesk：数据库错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="253"/>
        <source>Starting the demo&apos;s simulators (a chat site and an API)…</source>
        <translation>正在启动演示的模拟器（一个聊天网站和一个 API）…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="255"/>
        <source>Writing the demo workspace…</source>
        <translation>正在写入演示工作区…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="256"/>
        <source>Logging the demo accounts in…</source>
        <translation>正在登录演示账号…</translation>
    </message>
</context>
<context>
    <name>DesktopsView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="56"/>
        <source>Host</source>
        <extracomment>A desktop gone (left, or no heartbeat) longer than this is no longer listed.</extracomment>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="56"/>
        <source>Operator</source>
        <translation>操作员</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="56"/>
        <source>Accounts</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="56"/>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="57"/>
        <source>Last heartbeat</source>
        <translation>最近心跳</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="57"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message numerus="yes">
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="86"/>
        <source>%n desktop(s) working this queue</source>
        <translation>
            <numerusform>%n 台桌面正在处理此队列</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="89"/>
        <source> (this desktop)</source>
        <translation>（本机）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="90"/>
        <source>working</source>
        <translation>工作中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="90"/>
        <source>gone</source>
        <translation>已离开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="91"/>
        <source>%1 ago</source>
        <translation>%1 前</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/desktops_view.py" line="95"/>
        <source>running accounts: %1</source>
        <translation>正在运行的账号：%1</translation>
    </message>
</context>
<context>
    <name>DetailPane</name>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="110"/>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="216"/>
        <source>No task selected.</source>
        <extracomment>A file path from the log was clicked (after it was handed to the desktop to open). The record for the current task was (re)loaded. Opens a clicked path (the desktop&apos;s default application); replaceable in tests.</extracomment>
        <translation>未选择任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="126"/>
        <source>prompt</source>
        <extracomment>What the task used, in tokens (&quot;tokens: 120 in (20 cached) / 340 out&quot;); hidden when unknown.</extracomment>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="129"/>
        <source>result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="143"/>
        <source>Reasoning</source>
        <extracomment>A reasoning model&apos;s thinking, folded above the answer (kept apart from it by the lanes); the button says how long it is and opens it; both hidden for a task without any.</extracomment>
        <translation>思考过程</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="145"/>
        <source>Copy result</source>
        <translation>复制结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="152"/>
        <source>task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="164"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="294"/>
        <source>Details: {detail}</source>
        <translation>详情：{detail}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="313"/>
        <source>Reasoning ({n} characters)</source>
        <translation>思考过程（{n} 个字符）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="326"/>
        <source> ({n} cached)</source>
        <translation>（其中 {n} 命中缓存）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="327"/>
        <source>tokens: {prompt} in{cached} / {completion} out</source>
        <translation>令牌：输入 {prompt}{cached} / 输出 {completion}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="331"/>
        <source> (~ estimate from characters)</source>
        <translation>（~ 按字符估算）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="159"/>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="160"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="165"/>
        <source>Task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="218"/>
        <source>{id} — loading…</source>
        <translation>{id} — 正在加载…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="273"/>
        <source>{id} — not found</source>
        <translation>{id} — 未找到</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="278"/>
        <source>&lt;b&gt;{id}&lt;/b&gt; · {state} · attempt {attempt} · {profile} · {where}</source>
        <translation>&lt;b&gt;{id}&lt;/b&gt; · {state} · 第 {attempt} 次尝试 · {profile} · {where}</translation>
    </message>
    <message>
        <source>error: {kind}: {message}</source>
        <translation type="vanished">错误：{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/detail_pane.py" line="300"/>
        <source>truncated: the provider stopped this answer at its length limit (finish_reason &quot;length&quot;); the result is incomplete</source>
        <translation>已截断：服务方在达到长度上限时停止了此回答（finish_reason &quot;length&quot;）；结果不完整</translation>
    </message>
</context>
<context>
    <name>DisableQuestionBox</name>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="33"/>
        <source>Disable account</source>
        <extracomment>The running tasks the question names.</extracomment>
        <translation>停用账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="35"/>
        <source>Let the running task finish</source>
        <translation>让正在运行的任务完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="36"/>
        <source>Cancel it</source>
        <translation>取消它</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="37"/>
        <source>Disable</source>
        <translation>停用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="38"/>
        <source>Keep enabled</source>
        <translation>保持启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/disable_question.py" line="48"/>
        <source>The task {name} was running has finished. Disable {name} now? It takes no new task while you decide.</source>
        <translation>{name} 正在运行的任务已经完成。现在停用 {name} 吗？在你决定之前它不会接新任务。</translation>
    </message>
</context>
<context>
    <name>ExceptionsView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="93"/>
        <source>Task</source>
        <extracomment>Asked before a drop: (task ids) -&gt; go ahead? Replaceable in tests.</extracomment>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="93"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="93"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="93"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="101"/>
        <source>Show resolved</source>
        <translation>显示已处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="104"/>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="331"/>
        <source>No exception selected.</source>
        <translation>未选择异常。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="114"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="123"/>
        <source>task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="126"/>
        <source>note (kept with the decision)</source>
        <translation>备注（随处理决定一并保存）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="128"/>
        <source>the answer, pasted by hand</source>
        <translation>手工粘贴的回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="129"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="130"/>
        <source>Re-route to</source>
        <translation>改派到</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="133"/>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="168"/>
        <source>Answer by hand</source>
        <translation>手工回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="134"/>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="293"/>
        <source>Drop</source>
        <translation>放弃</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="166"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="167"/>
        <source>Task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="221"/>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="344"/>
        <source>Details: {detail}</source>
        <translation>详情：{detail}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="224"/>
        <source>resolved: {r}</source>
        <translation>已处理：{r}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="249"/>
        <source>Select an exception first.</source>
        <translation>请先选择一个异常。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="252"/>
        <source>Select one exception to answer by hand.</source>
        <translation>请只选择一个异常来手工回答。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="267"/>
        <source>Could not resolve {id}: {why}</source>
        <translation>无法处理 {id}：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="272"/>
        <source>{id}: {action} done.</source>
        <translation>{id}：{action} 已完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="274"/>
        <source>{n} tasks: {action} done.</source>
        <translation>{n} 个任务：{action} 已完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="283"/>
        <source>Drop task {id}?</source>
        <translation>放弃任务 {id}？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="284"/>
        <source>Drop {n} tasks?</source>
        <translation>放弃 {n} 个任务？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="287"/>
        <source>Tasks: {ids}</source>
        <translation>任务：{ids}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="288"/>
        <source>They stay failed, leave this list, and are exported as dropped with your note.</source>
        <translation>这些任务保持失败状态并移出此列表，导出时标记为已放弃并附上您的备注。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="291"/>
        <source>Drop exceptions</source>
        <translation>放弃异常</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="294"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="336"/>
        <source>&lt;b&gt;{id}&lt;/b&gt; · {profile} · attempt {attempt}</source>
        <translation>&lt;b&gt;{id}&lt;/b&gt; · {profile} · 第 {attempt} 次尝试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="339"/>
        <source>resolved: {r} {note}</source>
        <translation>已处理：{r} {note}</translation>
    </message>
    <message>
        <source>error: {kind}: {message}</source>
        <translation type="vanished">错误：{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="360"/>
        <source>Evidence: {links}</source>
        <translation>证据：{links}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/exceptions_view.py" line="362"/>
        <source>No evidence files.</source>
        <translation>没有证据文件。</translation>
    </message>
</context>
<context>
    <name>FilterBar</name>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="28"/>
        <source>Filter</source>
        <extracomment>Typing pauses this long before the table is filtered (a pass over a big table is not free).</extracomment>
        <translation>筛选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="31"/>
        <source>All lanes</source>
        <translation>所有通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="32"/>
        <source>Web</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="33"/>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="35"/>
        <source>All states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="40"/>
        <source>All profiles</source>
        <translation>所有配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="46"/>
        <source>Search id, prompt, error… (Ctrl+F)</source>
        <translation>搜索 ID、提示词、错误…（Ctrl+F）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="58"/>
        <source>Click to show every account and batch again</source>
        <extracomment>&quot;Show only this account / batch&quot; (from the row menu): shown while set; a click clears it.</extracomment>
        <translation>点击以重新显示所有账号和批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="119"/>
        <source>account {name}</source>
        <translation>账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="121"/>
        <source>batch {name}</source>
        <translation>批次 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/filter_bar.py" line="122"/>
        <source>Only {what} ✕</source>
        <translation>仅 {what} ✕</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="90"/>
        <source>waits until {t}</source>
        <translation>等待至 {t}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="102"/>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="104"/>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="106"/>
        <source>{h} h {m} min</source>
        <translation>{h} 小时 {m} 分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="113"/>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="114"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="115"/>
        <source>stalled</source>
        <translation>停滞</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="116"/>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="117"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="118"/>
        <location filename="../../mediadesk/ui/format.py" line="183"/>
        <source>canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="127"/>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="128"/>
        <source>busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="129"/>
        <location filename="../../mediadesk/ui/format.py" line="181"/>
        <source>needs login</source>
        <translation>需要登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="130"/>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="131"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="132"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="133"/>
        <source>needs a person (bot check)</source>
        <translation>需要人工处理（人机验证）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="134"/>
        <source>resting (usage limit)</source>
        <translation>休息中（用量上限）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="144"/>
        <source>stopped since {since}: {reason}; set the right API key, then Check and resume in Exceptions</source>
        <translation>自 {since} 起已停止：{reason}；请设置正确的 API 密钥，然后在“异常”中点“检查并恢复”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="148"/>
        <source>stopped since {since}: {reason}; fix the config, then Check and resume in Exceptions</source>
        <translation>自 {since} 起已停止：{reason}；请修正配置，然后在“异常”中点“检查并恢复”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="156"/>
        <source>environment variable {env} (or keyring entry {ring})</source>
        <translation>环境变量 {env}（或密钥环条目 {ring}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="159"/>
        <source>environment variable {env}</source>
        <translation>环境变量 {env}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="161"/>
        <source>keyring entry {ring}</source>
        <translation>密钥环条目 {ring}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="162"/>
        <source>nowhere (no api_key_env or api_key_keyring is set: no key was sent)</source>
        <translation>无处（未设置 api_key_env 或 api_key_keyring：没有发送密钥）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="170"/>
        <source>took too long</source>
        <translation>耗时过长</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="171"/>
        <source>refused: too many requests</source>
        <translation>被拒绝：请求过多</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="172"/>
        <source>the service had an error</source>
        <translation>服务出错</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="173"/>
        <source>connection problem</source>
        <translation>连接问题</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="174"/>
        <source>stopped answering (no heartbeat)</source>
        <translation>停止响应（没有心跳）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="175"/>
        <source>interrupted: MediaDesk stopped</source>
        <translation>已中断：MediaDesk 停止了</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="176"/>
        <source>the browser crashed</source>
        <translation>浏览器崩溃了</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="177"/>
        <source>the site showed an error</source>
        <translation>网站显示了错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="178"/>
        <source>the answer was cut off</source>
        <translation>回答被截断</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="179"/>
        <source>the request was refused as invalid</source>
        <translation>请求因无效被拒绝</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="180"/>
        <source>API key refused or missing</source>
        <translation>API 密钥被拒绝或缺失</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="182"/>
        <source>browser profile in use elsewhere</source>
        <translation>浏览器配置文件正被其他程序使用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="184"/>
        <source>setup problem</source>
        <translation>设置问题</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="185"/>
        <source>internal error (a bug in MediaDesk)</source>
        <translation>内部错误（MediaDesk 的缺陷）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="186"/>
        <source>out of credit</source>
        <translation>余额不足</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="187"/>
        <source>waited too long to start</source>
        <translation>等待开始的时间过长</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="188"/>
        <source>set aside after repeated crashes</source>
        <translation>多次崩溃后已搁置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="189"/>
        <source>an earlier turn of its conversation failed</source>
        <translation>所在对话的前一轮失败了</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="191"/>
        <source>every fallback profile failed</source>
        <translation>所有备用配置都失败了</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="192"/>
        <source>the answer was too long</source>
        <translation>回答太长</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="193"/>
        <source>the site asks for a person (bot check)</source>
        <translation>网站要求人工操作（机器人验证）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="194"/>
        <source>no answer found on the page</source>
        <translation>页面上找不到回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="195"/>
        <source>the site&apos;s answer was empty</source>
        <translation>网站的回答为空</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="196"/>
        <source>no answer: the model spent its whole token limit thinking</source>
        <translation>没有回答：模型把整个令牌上限都用在了思考上</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="198"/>
        <source>the prompt is too long for the site (not sent)</source>
        <translation>提示词超出了网站能接受的长度（未发送）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="222"/>
        <source>error: {kind}: {message}</source>
        <translation>错误：{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/style.py" line="232"/>
        <source>no font with Chinese characters: install one (Debian/Ubuntu: apt-get install fonts-noto-cjk)</source>
        <extracomment>(light theme, dark theme). Dark-theme colours are lighter so they keep contrast on a dark base.</extracomment>
        <translation>缺少中文字体：请安装一个（Debian/Ubuntu：apt-get install fonts-noto-cjk）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/style.py" line="235"/>
        <source>no colour emoji font: install one (Debian/Ubuntu: apt-get install fonts-noto-color-emoji)</source>
        <translation>缺少彩色表情字体：请安装一个（Debian/Ubuntu：apt-get install fonts-noto-color-emoji）</translation>
    </message>
</context>
<context>
    <name>GroupedTable</name>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="73"/>
        <source>Group by batch</source>
        <extracomment>The tree&apos;s current row is this task (the detail pane shows it).</extracomment>
        <translation>按批次分组</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="76"/>
        <source>Show the tasks grouped under their batch, each batch with its progress (click again for the flat list)</source>
        <translation>按批次分组显示任务，每个批次带进度（再次点击恢复平铺列表）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="81"/>
        <source>Copy rows</source>
        <translation>复制行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="179"/>
        <source>Copied {n} rows</source>
        <translation>已复制 {n} 行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="198"/>
        <source>Copy {n} ids</source>
        <translation>复制 {n} 个 ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="203"/>
        <source>Expand all batches</source>
        <translation>展开所有批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/grouped_view.py" line="205"/>
        <source>Collapse all batches</source>
        <translation>折叠所有批次</translation>
    </message>
</context>
<context>
    <name>LanePanel</name>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="101"/>
        <source>Web lane</source>
        <translation>网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="101"/>
        <source>API lane</source>
        <translation>API 通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="127"/>
        <source>gate: requests allowed at once now / configured (an adaptive gate learns the provider&apos;s real limit from its refusals); breaker: open = nothing is sent there until a probe succeeds</source>
        <extracomment>The one-line summary shown instead of everything below the title in compact mode. The callees&apos; gates and breakers (an API endpoint is shared by its profiles) and backlog.</extracomment>
        <translation>闸门：当前允许的并发请求数 / 配置值（自适应闸门会根据服务方的拒绝学习其真实上限）；熔断器：打开 = 在探测成功之前不向该处发送任何请求</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="130"/>
        <source>Estimated time until this lane&apos;s queued and running tasks are done, from the lane&apos;s own recent run times: p50 = median case, p90 = slow case.</source>
        <translation>根据此通道最近的运行耗时，估算其排队中和运行中的任务全部完成所需的时间：p50 = 中位情况，p90 = 较慢情况。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="135"/>
        <source>account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="135"/>
        <source>profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="135"/>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="135"/>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="136"/>
        <source>elapsed</source>
        <translation>已用时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="136"/>
        <source>heartbeat</source>
        <translation>心跳</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="136"/>
        <source>settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="142"/>
        <source>No web accounts configured.</source>
        <translation>尚未配置网页账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="143"/>
        <source>No API profiles configured.</source>
        <translation>尚未配置 API 配置。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="274"/>
        <source>no current work</source>
        <translation>没有当前工作</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="278"/>
        <source>The current work: the batches that have had tasks on these lanes since they were last idle (a finished run stays until new work arrives). Every batch ever run is in the Batches tab.</source>
        <translation>当前工作：自这些通道上次空闲以来有任务的批次（一轮完成后会保留显示，直到新的工作到来）。所有运行过的批次都在“批次”标签页中。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="374"/>
        <source>ETA after {need} finished runs of {group} ({have} so far) · {rate}</source>
        <translation>{group} 完成 {need} 次运行后给出预计剩余时间（目前 {have} 次）· {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="376"/>
        <source>ETA — (no lane has reported yet) · {rate}</source>
        <translation>预计剩余 —（还没有通道报告）· {rate}</translation>
    </message>
    <message>
        <source>no tasks</source>
        <translation type="vanished">暂无任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="282"/>
        <source>running {run} · pending {pend} · done {ok} · failed {fail} · canceled {canc}</source>
        <translation>运行中 {run} · 等待中 {pend} · 成功 {ok} · 失败 {fail} · 已取消 {canc}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="295"/>
        <source>{done}/{total} done · {run} running · {pend} pending</source>
        <translation>已完成 {done}/{total} · 运行中 {run} · 等待中 {pend}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="298"/>
        <source> · {n} failed</source>
        <translation> · 失败 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="317"/>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="317"/>
        <source>paused (kept from last session)</source>
        <translation>已暂停（沿用上次会话）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="319"/>
        <source>partly paused</source>
        <translation>部分暂停</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="348"/>
        <source>{name}: gate {cur}/{limit}, {n} in flight</source>
        <translation>{name}：闸门 {cur}/{limit}，进行中 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="351"/>
        <source>paused {s}</source>
        <translation>暂停 {s}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="355"/>
        <source>breaker open</source>
        <translation>熔断器已打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="355"/>
        <source>breaker half-open</source>
        <translation>熔断器半开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="358"/>
        <source>, next probe in {s}</source>
        <translation>，{s} 后下次探测</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="362"/>
        <source>backlog: high {h} · normal {n} · low {low}</source>
        <translation>积压：高 {h} · 普通 {n} · 低 {low}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="369"/>
        <source>{n} tasks/min</source>
        <translation>{n} 个任务/分钟</translation>
    </message>
    <message>
        <source>{n:.1f} tasks/min</source>
        <translation type="vanished">{n:.1f} 个任务/分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="372"/>
        <source>ETA — (no lane can take the queued tasks) · {rate}</source>
        <translation>预计剩余 —（没有通道能接收排队中的任务）· {rate}</translation>
    </message>
    <message>
        <source>ETA — (no finished run yet) · {rate}</source>
        <translation type="vanished">预计剩余 —（尚无已完成的运行）· {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="378"/>
        <source>idle · {rate}</source>
        <translation>空闲 · {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="379"/>
        <source>ETA p50 {p50}, p90 {p90} · {rate}</source>
        <translation>预计剩余 p50 {p50}，p90 {p90} · {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="409"/>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="444"/>
        <source>{status} (paused)</source>
        <translation>{status}（已暂停）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="413"/>
        <source>stopped by a budget</source>
        <translation>已被预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="442"/>
        <source>{n}/{cap} running</source>
        <translation>运行中 {n}/{cap}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="446"/>
        <source>{status} · {waits}</source>
        <translation>{status} · {waits}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="448"/>
        <source>{status} · stopped by a budget</source>
        <translation>{status} · 已被预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="452"/>
        <source>empty prompt: on</source>
        <translation>空指令：开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="452"/>
        <source>empty prompt: off</source>
        <translation>空指令：关</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/lane_panel.py" line="464"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
</context>
<context>
    <name>LogDock</name>
    <message>
        <location filename="../../mediadesk/ui/panels/log_dock.py" line="50"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/log_dock.py" line="57"/>
        <source>Filter log (text, lane, task id)…</source>
        <translation>筛选日志（文本、通道、任务 ID）…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/log_dock.py" line="59"/>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
</context>
<context>
    <name>LogPhrases</name>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="150"/>
        <source>attempt {attempt} started</source>
        <extracomment>The translation context of every template (``QCoreApplication.translate(CONTEXT, template)``). A value in a line: shown as given (str, int), or rendered in turn (a LogText, a tuple joined).</extracomment>
        <translation>第 {attempt} 次尝试开始</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="151"/>
        <source>canceled while pending</source>
        <translation>等待中被取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="152"/>
        <source>cancel requested by operator</source>
        <translation>操作员请求取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="153"/>
        <source>re-queued by operator</source>
        <translation>操作员已重新排队</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="154"/>
        <source>reused the answer of task {task}: nothing sent, no cost</source>
        <translation>沿用任务 {task} 的回答：未发送，无费用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="155"/>
        <source>resolved by operator: {action} ({note})</source>
        <translation>操作员已处理：{action}（{note}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="156"/>
        <source>resolved by operator: {action}</source>
        <translation>操作员已处理：{action}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="157"/>
        <source>not run: {why}</source>
        <translation>未运行：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="158"/>
        <source>an earlier turn ({task}) of conversation {conversation} ended {state}</source>
        <translation>会话 {conversation} 的前一轮（{task}）以“{state}”结束</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="160"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="161"/>
        <source>canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="163"/>
        <source>success in {seconds} s{more}</source>
        <translation>成功，用时 {seconds} 秒{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="164"/>
        <source> (truncated: the provider stopped at its length limit)</source>
        <translation>（已截断：服务商在长度上限处停止）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="166"/>
        <source>canceled {who} while running</source>
        <translation>运行中被取消{who}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="167"/>
        <source>by operator</source>
        <translation>（操作员）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="168"/>
        <source>(the attempt was cancelled)</source>
        <translation>（本次尝试被取消）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="169"/>
        <source>attempt abandoned: the task was taken over (stale heartbeat)</source>
        <translation>已放弃本次尝试：任务已被接管（心跳过期）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="171"/>
        <source>interrupted by shutdown; will resume</source>
        <translation>因关闭而中断；将会继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="172"/>
        <source>interrupted: the database failed; will resume</source>
        <translation>已中断：数据库出错；将会继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="174"/>
        <source>recovered after a crash: cancel had been requested</source>
        <translation>崩溃后恢复：此前已请求取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="176"/>
        <source>recovered: cancel had been requested</source>
        <translation>已恢复：此前已请求取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="177"/>
        <source>failed: {error}</source>
        <translation>失败：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="179"/>
        <source>attempt {attempt} failed ({error}); {why}</source>
        <translation>第 {attempt} 次尝试失败（{error}）；{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="180"/>
        <source>not started ({error}); attempt not charged, back in the queue for {seconds} s{more}</source>
        <translation>未开始（{error}）；本次尝试不计数，重新排队 {seconds} 秒{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="182"/>
        <source>attempt {attempt} {why} ({error}){more}</source>
        <translation>第 {attempt} 次尝试：{why}（{error}）{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="183"/>
        <source>; callee paused {seconds} s{more}</source>
        <translation>；被调用方暂停 {seconds} 秒{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="184"/>
        <source>; {callee} paused {seconds} s{more}</source>
        <translation>；{callee}暂停 {seconds} 秒{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="185"/>
        <source>; breaker {breaker} ({reason}){more}</source>
        <translation>；熔断器{breaker}（{reason}）{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="186"/>
        <source>; {callee} stopped, not probed: it waits for the operator</source>
        <translation>；{callee}已停止，不再探测：等待操作员处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="188"/>
        <source>, next probe in {seconds} s</source>
        <translation>，{seconds} 秒后下次探测</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="189"/>
        <source>retry {n}/{max} in {seconds} s</source>
        <translation>{seconds} 秒后第 {n}/{max} 次重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="190"/>
        <source>not retryable</source>
        <translation>不可重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="191"/>
        <source>no retries left</source>
        <translation>重试次数已用完</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="192"/>
        <source>not started; attempt not charged</source>
        <translation>未开始；本次尝试不计数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="193"/>
        <source>refused by the callee; attempt not charged</source>
        <translation>被调用方拒绝；本次尝试不计数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="194"/>
        <source>could not reach the callee; attempt not charged</source>
        <translation>无法连接被调用方；本次尝试不计数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="196"/>
        <source>stopped the callee until the operator fixes it; attempt not charged</source>
        <translation>已停止该被调用方，直到操作员修复；本次尝试不计数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="198"/>
        <source>crashed or timed out on {n} attempts: set aside for a person</source>
        <translation>{n} 次尝试崩溃或超时：已搁置，等待人工处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="201"/>
        <source>expired: {why}</source>
        <translation>已过期：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="202"/>
        <source>not started within max_wait_s = {limit} s (waited {seconds} s)</source>
        <translation>未在 max_wait_s = {limit} 秒内开始（已等待 {seconds} 秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="204"/>
        <source>fallback exhausted: {why}</source>
        <translation>后备链已用尽：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="205"/>
        <source>every step of the fallback chain failed; last: {profile} ({kind}: {error})</source>
        <translation>后备链的每一步都失败了；最后一步：{profile}（{kind}: {error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="207"/>
        <source>fallback: {why}; moved to {profile}</source>
        <translation>后备：{why}；已转到 {profile}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="208"/>
        <source>fallback: {why}; answered with the rule reply</source>
        <translation>后备：{why}；已用规则回复作答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="209"/>
        <source>{profile} could not serve it ({kind}: {error})</source>
        <translation>{profile} 无法处理（{kind}: {error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="210"/>
        <source>retry by operator</source>
        <translation>操作员要求重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="211"/>
        <source>reroute by operator to {profile}</source>
        <translation>操作员改派到 {profile}</translation>
    </message>
    <message>
        <source>{action} by operator to {profile}</source>
        <translation type="vanished">操作员执行 {action}，目标 {profile}</translation>
    </message>
    <message>
        <source>{action} by operator</source>
        <translation type="vanished">操作员执行 {action}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="213"/>
        <source>{request} -&gt; {status} in {seconds} s, {chars} chars{more}</source>
        <translation>{request} -&gt; {status}，用时 {seconds} 秒，{chars} 个字符{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="214"/>
        <source>{request} -&gt; {status} in {seconds} s ({kind}{more})</source>
        <translation>{request} -&gt; {status}，用时 {seconds} 秒（{kind}{more}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="215"/>
        <source>{request} -&gt; not sent: {error}</source>
        <translation>{request} -&gt; 未发送：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="216"/>
        <source>{request} -&gt; cancelled after {seconds} s</source>
        <translation>{request} -&gt; {seconds} 秒后取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="217"/>
        <source>{request} -&gt; {kind} after {seconds} s{more}</source>
        <translation>{request} -&gt; {seconds} 秒后 {kind}{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="218"/>
        <source>POST {path} stream={flag}</source>
        <translation>POST {path} stream={flag}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="219"/>
        <source> (truncated: finish_reason=length)</source>
        <translation>（已截断：finish_reason=length）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="220"/>
        <source>, retry after {seconds} s</source>
        <translation>，{seconds} 秒后重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="221"/>
        <source>; usage {prompt} in ({cached} cached) / {completion} out</source>
        <translation>；用量：输入 {prompt}（其中 {cached} 命中缓存）/ 输出 {completion}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="222"/>
        <source>; usage {prompt} in / {completion} out</source>
        <translation>；用量：输入 {prompt} / 输出 {completion}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="223"/>
        <source>; no usage reported (estimated from characters)</source>
        <translation>；服务商未报告用量（按字符估算）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="224"/>
        <source>; thinking kept apart: {chars} chars</source>
        <translation>；思考过程已单独保存：{chars} 个字符</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="225"/>
        <source>; thinking kept apart: {chars} chars, {tokens} tokens</source>
        <translation>；思考过程已单独保存：{chars} 个字符，{tokens} 个令牌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="227"/>
        <source>rate limits: {why}</source>
        <translation>速率限制：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="228"/>
        <source>the provider allows {n} tokens a minute</source>
        <translation>服务商每分钟允许 {n} 个令牌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="229"/>
        <source>the provider allows {n} requests a minute</source>
        <translation>服务商每分钟允许 {n} 个请求</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="230"/>
        <source>{n} tokens left in the provider&apos;s window: waiting for them</source>
        <translation>服务商窗口内剩余 {n} 个令牌：等待补足</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="232"/>
        <source>{n} tokens left in the provider&apos;s window: holding {seconds} s</source>
        <translation>服务商窗口内剩余 {n} 个令牌：暂停 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="234"/>
        <source>no request left in the provider&apos;s window: waiting for one</source>
        <translation>服务商窗口内已无剩余请求：等待下一个</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="236"/>
        <source>no request left in the provider&apos;s window: holding {seconds} s</source>
        <translation>服务商窗口内已无剩余请求：暂停 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="239"/>
        <source>sent in provider batch {batch} ({n} tasks, economy)</source>
        <translation>已随服务商批次 {batch} 发送（{n} 个任务，经济通道）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="240"/>
        <source>provider batch {batch} found again after a restart</source>
        <translation>重启后重新找到服务商批次 {batch}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="241"/>
        <source>back in the queue, not charged: {reason}</source>
        <translation>已回到队列，不计次数：{reason}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="242"/>
        <source>canceled by operator; provider batch {batch} ended</source>
        <translation>已被操作员取消；服务商批次 {batch} 已结束</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="243"/>
        <source>success from provider batch {batch} (economy)</source>
        <translation>由服务商批次 {batch} 成功返回（经济通道）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="244"/>
        <source>its provider batch was never created (interrupted)</source>
        <translation>其服务商批次从未创建（被中断）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="246"/>
        <source>the provider did not take the batch ({kind}: {error})</source>
        <translation>服务商未接受该批次（{kind}：{error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="249"/>
        <source>(at lane start) {line}</source>
        <translation>（通道启动时）{line}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="250"/>
        <source>account {account}: chromium pid {pid}, debug port {port}</source>
        <translation>账号 {account}：chromium 进程 {pid}，调试端口 {port}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="252"/>
        <source>answer {chars} chars; driver overhead {ms} ms</source>
        <translation>回答 {chars} 个字符；驱动开销 {ms} 毫秒</translation>
    </message>
    <message>
        <source>done: stream ended</source>
        <translation type="vanished">完成：网站的回答流已结束</translation>
    </message>
    <message>
        <source>done: page settled</source>
        <translation type="vanished">完成：页面内容已稳定</translation>
    </message>
    <message>
        <source>done: page settled (stream still open)</source>
        <translation type="vanished">完成：页面内容已稳定（回答流仍未关闭）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="253"/>
        <source>the prompt ({chars} chars) is longer than the site&apos;s paste_limit ({limit}): it went as the attached file prompt.txt, with the adapter&apos;s attach_note typed in the box</source>
        <translation>提示词（{chars} 个字符）超过了网站的 paste_limit（{limit}）：已作为附件 prompt.txt 发送，输入框中填入的是适配器的 attach_note</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="256"/>
        <source>done: {why}</source>
        <translation>完成：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="257"/>
        <source>waited: {why}</source>
        <translation>已等待：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="258"/>
        <source>the site was still generating (its busy indicator showed): waited {seconds} s before typing</source>
        <translation>网站仍在生成（忙碌指示仍显示）：输入前等待了 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="260"/>
        <source>an earlier answer&apos;s stream ({streams}) was still open: waited {seconds} s before typing</source>
        <translation>先前回答的回答流（{streams}）仍未关闭：输入前等待了 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="262"/>
        <source>stream ended: the stream our send started ended, then the answer was still {ms} ms</source>
        <translation>回答流已结束：我们发送后开启的回答流已结束，随后回答 {ms} 毫秒内未再变化</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="264"/>
        <source>page settled (stream still open): no busy indicator and the answer unchanged for {seconds} s while a stream of ours stayed open (a channel the site keeps open)</source>
        <translation>页面内容已稳定（回答流仍未关闭）：没有忙碌指示，且回答 {seconds} 秒内未变化，而我们的回答流仍开着（网站一直保持打开的通道）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="267"/>
        <source>page settled: no stream of ours to read the end from, so busy gone and the answer unchanged for settle_ms = {ms} ms</source>
        <translation>页面内容已稳定：没有可读出结束的回答流，因此以忙碌指示消失且回答在 settle_ms = {ms} 毫秒内未变化为准</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="270"/>
        <source>answer read from the site&apos;s stream ({frames} frames): {chars} chars as the model wrote them, {reasoning} chars of reasoning kept apart</source>
        <translation>回答取自网站的回答流（{frames} 帧）：按模型原文共 {chars} 个字符，另有 {reasoning} 个字符的推理过程单独保存</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="273"/>
        <source>answer read from the page, not the stream: {why}</source>
        <translation>回答取自页面，而非回答流：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="274"/>
        <source>the adapter&apos;s stream decoder found no answer in {frames} frames (has the site changed its stream&apos;s format?)</source>
        <translation>适配器的回答流解码器在 {frames} 帧中未找到回答（网站是否更改了回答流的格式？）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="277"/>
        <source>nothing of our stream could be kept to read the answer from (see the stream&apos;s events)</source>
        <translation>未能保留我们的回答流内容以读取回答（见回答流事件）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="279"/>
        <source>answer not found: {error}; the task goes back uncharged, the account rests</source>
        <translation>未找到回答：{error}；任务退回队列且不计尝试次数，该账号暂停</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="281"/>
        <source>no answer was found for this prompt {n} times: counted as a failure of the task</source>
        <translation>此提示词已有 {n} 次未找到回答：计为任务失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="283"/>
        <source>warning: {warning}</source>
        <translation>警告：{warning}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="284"/>
        <source>interrupted: another desktop took this account over; will resume</source>
        <translation>已中断：另一台桌面接管了此账号；稍后继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="286"/>
        <source>recycling the browser after {n} tasks</source>
        <translation>已运行 {n} 个任务，回收浏览器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="287"/>
        <source>the site answered this prompt with only a busy notice {n} times: counted as a failure of the task</source>
        <translation>站点对这个提示词 {n} 次只回复了繁忙提示：计为任务失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="290"/>
        <source>conversation {conversation}: turn {turn} in its chat thread (reopening {url})</source>
        <translation>会话 {conversation}：在其聊天线程中进行第 {turn} 轮（重新打开 {url}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="292"/>
        <source>conversation {conversation}: turn {turn} in its chat thread</source>
        <translation>会话 {conversation}：在其聊天线程中进行第 {turn} 轮</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="294"/>
        <source>conversation {conversation}: its chat thread cannot be reopened on this account; replaying {n} earlier turn(s) in a new chat</source>
        <translation>会话 {conversation}：此账号无法重新打开其聊天线程；在新聊天中重放之前的 {n} 轮</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="297"/>
        <source>not started: {error}</source>
        <translation>未开始：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="298"/>
        <source>evidence: {files}</source>
        <translation>证据：{files}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="299"/>
        <source>canceled: generation stopped and page replaced</source>
        <translation>已取消：已停止生成并替换页面</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="300"/>
        <source>canceled: browser did not answer within {seconds} s; killed it</source>
        <translation>已取消：浏览器 {seconds} 秒内无响应；已强制结束</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="303"/>
        <source>automatic login: not tried again before {time} (one try per {seconds} s; the last one at {last} failed: {error})</source>
        <translation>自动登录：{time} 之前不再尝试（每 {seconds} 秒最多一次；上次在 {last}，失败：{error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="306"/>
        <source>automatic login: not tried again before {time} (one try per {seconds} s; the last one at {last} succeeded)</source>
        <translation>自动登录：{time} 之前不再尝试（每 {seconds} 秒最多一次；上次在 {last}，成功）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="309"/>
        <source>automatic login: {account} is logged in again</source>
        <translation>自动登录：{account} 已重新登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="310"/>
        <source>automatic login: {error}; logging {account} in with its stored credentials ({source})</source>
        <translation>自动登录：{error}；正在用保存的凭据登录 {account}（{source}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="312"/>
        <source>automatic login failed: {why}; next try not before {time}</source>
        <translation>自动登录失败：{why}；{time} 之前不再尝试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="314"/>
        <source>still logged out after submitting the login form ({error})</source>
        <translation>提交登录表单后仍未登录（{error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="317"/>
        <source>browser: previous chromium is gone; relaunching on a fresh process</source>
        <translation>浏览器：之前的 chromium 已退出；正在用新进程重新启动</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="319"/>
        <source>browser: the page could not be replaced; browser ended</source>
        <translation>浏览器：无法替换页面；浏览器已结束</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="321"/>
        <source>browser: started chromium pid {pid} on {path}</source>
        <translation>浏览器：已启动 chromium 进程 {pid}，配置目录 {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="322"/>
        <source>browser: chromium pid {pid} listening on port {port} (CDP connected)</source>
        <translation>浏览器：chromium 进程 {pid} 在端口 {port} 监听（CDP 已连接）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="324"/>
        <source>browser: closing chromium pid {pid} ({n} processes, grace {seconds} s)</source>
        <translation>浏览器：正在关闭 chromium 进程 {pid}（{n} 个进程，宽限 {seconds} 秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="326"/>
        <source>browser: chromium pid {pid} closed {how} ({n} processes){more}</source>
        <translation>浏览器：chromium 进程 {pid} 已{how}关闭（{n} 个进程）{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="328"/>
        <source>gracefully</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="329"/>
        <source>after SIGKILL</source>
        <translation>在 SIGKILL 后</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="330"/>
        <source>after SIGTERM</source>
        <translation>在 SIGTERM 后</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="331"/>
        <source>; STILL RUNNING: {pids}</source>
        <translation>；仍在运行：{pids}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="332"/>
        <source>browser: chromium pid {pid} killed ({n} processes)</source>
        <translation>浏览器：chromium 进程 {pid} 已强制结束（{n} 个进程）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="333"/>
        <source>browser: could not write {path}/.mediadesk-browser.json: {error}</source>
        <translation>浏览器：无法写入 {path}/.mediadesk-browser.json：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="335"/>
        <source>session cookies: restored {n} ({domains}) from {file}</source>
        <translation>会话 cookie：已从 {file} 恢复 {n} 个（{domains}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="336"/>
        <source>session cookies: could not restore {n} from {file}: {error}</source>
        <translation>会话 cookie：无法从 {file} 恢复 {n} 个：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="338"/>
        <source>session cookies: could not save {file}: {error}</source>
        <translation>会话 cookie：无法保存 {file}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="339"/>
        <source>session cookies: not saved ({error})</source>
        <translation>会话 cookie：未保存（{error}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="341"/>
        <source>self-check: clean{more}</source>
        <translation>自检：正常{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="342"/>
        <source> (removed stale {files})</source>
        <translation>（已删除过期的 {files}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="343"/>
        <source>self-check: found residue {name} pid {pid} on {path}: {outcome} ({n} processes); {reason}</source>
        <translation>自检：在 {path} 上发现残留的 {name} 进程 {pid}：{outcome}（{n} 个进程）；{reason}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="345"/>
        <source>terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="346"/>
        <source>killed after {seconds} s grace</source>
        <translation>宽限 {seconds} 秒后已强制结束</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="347"/>
        <source>could NOT end pids {pids}</source>
        <translation>无法结束进程 {pids}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="348"/>
        <source>self-check: our recorded port {port} is used by {process}, not on this profile: left alone</source>
        <translation>自检：我们记录的端口 {port} 被 {process} 占用，它不属于此配置目录：不做处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="350"/>
        <source>self-check: profile {path} is in use by {process}; close it or wait ({reason})</source>
        <translation>自检：配置目录 {path} 正被 {process} 使用；请关闭它或等待（{reason}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="352"/>
        <source>an open browser of this MediaDesk uses it</source>
        <translation>本 MediaDesk 打开的浏览器正在使用它</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="353"/>
        <source>Chromium&apos;s SingletonLock says another computer uses this profile; if that is stale, delete the SingletonLock file in the profile</source>
        <translation>Chromium 的 SingletonLock 表明另一台计算机正在使用此配置目录；如果这已过时，请删除配置目录中的 SingletonLock 文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="356"/>
        <source>Chromium&apos;s SingletonLock names it and its command line cannot be read</source>
        <translation>Chromium 的 SingletonLock 指向它，但无法读取它的命令行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="358"/>
        <source>the account lock is held by pid {pid}</source>
        <translation>账号锁被进程 {pid} 持有</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="359"/>
        <source>an orphaned chromium {type} process whose browser is gone</source>
        <translation>一个孤立的 chromium {type} 进程，其浏览器已退出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="361"/>
        <source>recorded by this MediaDesk</source>
        <translation>由本 MediaDesk 记录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="362"/>
        <source>recorded by MediaDesk pid {pid}, which is gone</source>
        <translation>由 MediaDesk 进程 {pid} 记录，该进程已退出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="363"/>
        <source>it belongs to MediaDesk pid {pid}, which is still running</source>
        <translation>它属于 MediaDesk 进程 {pid}，该进程仍在运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="365"/>
        <source>it only holds our recorded debug port; not on our profile, not ours</source>
        <translation>它只占用了我们记录的调试端口；不在我们的配置目录上，不属于我们</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="367"/>
        <source>the account lock was free and this MediaDesk started it but no longer has it open</source>
        <translation>账号锁空闲，它由本 MediaDesk 启动，但本 MediaDesk 已不再打开它</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="369"/>
        <source>the account lock was free and the MediaDesk that started it is gone</source>
        <translation>账号锁空闲，且启动它的 MediaDesk 已退出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="371"/>
        <source>it was not started by MediaDesk and cannot be attributed</source>
        <translation>它不是由 MediaDesk 启动的，无法确定归属</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="374"/>
        <source>the answer quoted the API key (the server echoed the Authorization header): stored with *** in its place</source>
        <translation>回答中引用了 API 密钥（服务器回显了 Authorization 请求头）：已以 *** 代替后保存</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="377"/>
        <source>stored with U+FFFD in place of {what} that no database can hold as text (a lone surrogate or NUL the provider sent)</source>
        <translation>已保存，{what}以 U+FFFD 代替（提供方发送了数据库无法作为文本保存的孤立代理项或 NUL）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="380"/>
        <source>{line}; {note}</source>
        <translation>{line}；{note}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="382"/>
        <source>{text}</source>
        <extracomment>someone else&apos;s words (a server&apos;s error text as a probe&apos;s answer): shown as they came</extracomment>
        <translation>{text}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="384"/>
        <source>{callee} {name}: breaker {was} -&gt; {breaker} ({reason}); waiting since {since} ({seconds} s) for it to answer a probe (every {interval} s); its tasks stay pending, nothing is charged</source>
        <translation>{callee} {name}：熔断器 {was} -&gt; {breaker}（{reason}）；自 {since}（{seconds} 秒）起等待它响应探测（每 {interval} 秒一次）；其任务保持待处理，不计次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="387"/>
        <source>{callee} {name}: breaker {was} -&gt; {breaker} ({reason}){more}</source>
        <translation>{callee} {name}：熔断器 {was} -&gt; {breaker}（{reason}）{more}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="391"/>
        <source>{callee} {name}: probe failed ({what}); waiting since {since} ({seconds} s) for it to answer a probe (every {interval} s); its tasks stay pending, nothing is charged</source>
        <translation>{callee} {name}：探测失败（{what}）；自 {since}（{seconds} 秒）起等待它响应探测（每 {interval} 秒一次）；其任务保持待处理，不计次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="394"/>
        <source>{callee} {name}: probe failed ({what}){more}</source>
        <translation>{callee} {name}：探测失败（{what}）{more}</translation>
    </message>
    <message>
        <source>{callee} {name}: {reason}; no task is sent and no probe either until the config is fixed and MediaDesk restarted</source>
        <translation type="vanished">{callee} {name}：{reason}；在修正配置并重启 MediaDesk 之前，不再发送任务，也不再探测</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="395"/>
        <source>{callee} {name}: {reason}; no task is sent and no probe either until the key is fixed and the endpoint resumed (console: Exceptions, Check and resume) or MediaDesk started again; its tasks stay pending, nothing is charged</source>
        <translation>{callee} {name}：{reason}；在密钥修正并恢复该端点（控制台：异常，检查并恢复）或重新启动 MediaDesk 之前，不发送任务，也不探测；它的任务保持等待，不计任何尝试次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="399"/>
        <source>{callee} {name}: {reason}; no task is sent and no probe either until the config is fixed and the endpoint resumed (console: Exceptions, Check and resume) or MediaDesk started again; its tasks stay pending, nothing is charged</source>
        <translation>{callee} {name}：{reason}；在配置修正并恢复该端点（控制台：异常，检查并恢复）或重新启动 MediaDesk 之前，不发送任务，也不探测；它的任务保持等待，不计任何尝试次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="403"/>
        <source>{callee} {name}: resumed by the operator (it was stopped: {reason})</source>
        <translation>{callee} {name}：已由操作员恢复（此前停止原因：{reason}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="405"/>
        <source>stopped: {error}</source>
        <translation>已停止：{error}</translation>
    </message>
    <message>
        <source>{callee} {name}: breaker {was} -&gt; {breaker} ({reason})</source>
        <translation type="vanished">{callee} {name}：熔断器 {was} -&gt; {breaker}（{reason}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="389"/>
        <source>{callee} {name}: breaker {was} -&gt; {breaker}</source>
        <translation>{callee} {name}：熔断器 {was} -&gt; {breaker}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="390"/>
        <source>{callee} {name}: probe ok ({what})</source>
        <translation>{callee} {name}：探测成功（{what}）</translation>
    </message>
    <message>
        <source>{callee} {name}: probe failed ({what})</source>
        <translation type="vanished">{callee} {name}：探测失败（{what}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="406"/>
        <source>endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="407"/>
        <source>account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="408"/>
        <source>closed</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="409"/>
        <source>open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="410"/>
        <source>half_open</source>
        <translation>半开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="411"/>
        <source>no probe for this callee: one trial task decides</source>
        <translation>此被调用方没有探测：由一个试运行任务决定</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="412"/>
        <source>probe error: {error}</source>
        <translation>探测出错：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="413"/>
        <source>the trial task failed</source>
        <translation>试运行任务失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="414"/>
        <source>{failed} of the last {n} calls failed</source>
        <translation>最近 {n} 次调用中有 {failed} 次失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="415"/>
        <source>refused with no success for {seconds} s</source>
        <translation>已连续 {seconds} 秒被拒绝且没有成功</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="416"/>
        <source>unavailable: {error}</source>
        <translation>不可用：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="417"/>
        <source>out of credit: {error}</source>
        <translation>额度用尽：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="419"/>
        <source>site unreachable: {error}</source>
        <translation>站点无法访问：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="420"/>
        <source>site down: {error}; the task goes back uncharged and the account&apos;s breaker probes the site</source>
        <translation>站点宕机：{error}；任务退回队列且不计次数，账号的熔断器会探测该站点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="422"/>
        <source>network: {error} and the site does not answer ({answer}): the run is cut</source>
        <translation>网络：{error}，且站点无响应（{answer}）：本次运行已中止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="424"/>
        <source>network: {error}, but the site answers ({answer}): the run goes on</source>
        <translation>网络：{error}，但站点仍有响应（{answer}）：运行继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="426"/>
        <source>usage limit: account {account} {rest}; it takes no task until then</source>
        <translation>用量上限：账号 {account} {rest}；在此之前不接任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="428"/>
        <source>challenge: account {account} needs a person: {error}; resolve it with the account&apos;s &apos;Log in&apos; (a visible browser on its profile); the task goes back uncharged</source>
        <translation>人机验证：账号 {account} 需要人工处理：{error}；请用该账号的“登录”处理（在其配置文件上打开可见浏览器）；任务退回队列且不计次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="431"/>
        <source>account {account} needs a person: {error}</source>
        <translation>账号 {account} 需要人工处理：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="433"/>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="434"/>
        <source>no answer within {seconds} s</source>
        <translation>{seconds} 秒内无应答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="435"/>
        <source>HTTP {status}</source>
        <translation>HTTP {status}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="436"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="437"/>
        <source>an operator is logging in</source>
        <translation>操作员正在登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="438"/>
        <source>a run is in progress</source>
        <translation>正在运行任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="439"/>
        <source>needs login: {error}</source>
        <translation>需要登录：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/core/log_lines.py" line="440"/>
        <source>logged in, prompt box ready</source>
        <translation>已登录，输入框就绪</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="136"/>
        <location filename="../../mediadesk/ui/window/main_window.py" line="432"/>
        <source>MediaDesk — {dir}</source>
        <extracomment>Notices that need the operator (unseen): shown in the title, the status bar and the tray. The window was closed by the operator (the app then stops the scheduler and quits). Setup&apos;s &quot;Restart lanes&quot;: the workspace switcher restarts them from the saved config. The config file this console runs (Setup… edits it); None: &lt;data dir&gt;/config.toml. &quot;Check all accounts…&quot; (one at a time). Whether Setup may offer &quot;Restart lanes&quot; (set by whoever answers restartLanesRequested).</extracomment>
        <translation>MediaDesk — {dir}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="225"/>
        <source>Accounts</source>
        <extracomment>Asked before the window closes: () -&gt; close now? (the app installs the close question)</extracomment>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="228"/>
        <source>Profiles</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="248"/>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="251"/>
        <source>Batches</source>
        <translation>批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="255"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="285"/>
        <source>Answer kept</source>
        <translation>已保留该回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="286"/>
        <source>Keep mark taken off</source>
        <translation>已取消保留标记</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="306"/>
        <source>Desktops</source>
        <translation>桌面</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/panes.py" line="83"/>
        <source>Exceptions ({n})</source>
        <translation>异常 ({n})</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="324"/>
        <source>Setup…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="326"/>
        <source>Edit endpoints, profiles and accounts in the config file</source>
        <translation>编辑配置文件中的端点、配置和账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="434"/>
        <source>MediaDesk — {config} ({dir})</source>
        <translation>MediaDesk — {config}（{dir}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="562"/>
        <source>Setup</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="604"/>
        <source>Opening a browser to log in {0}...</source>
        <translation>正在打开浏览器以登录 {0}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="608"/>
        <source>Login for {0} failed: {1}</source>
        <translation>{0} 登录失败：{1}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="611"/>
        <source>{0} is logged in</source>
        <translation>{0} 已登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/main_window.py" line="613"/>
        <source>Login for {0} was not completed</source>
        <translation>{0} 的登录未完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="159"/>
        <location filename="../../mediadesk/ui/window/submission.py" line="173"/>
        <source>Batch not submitted</source>
        <translation>批次未提交</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="151"/>
        <source>Submitting… {n} of {m}</source>
        <extracomment>The staging dialog while it is open. The bundled demo batch (&quot;Load demo batch&quot;), when this workspace is the demo.</extracomment>
        <translation>正在提交… {n}/{m}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="162"/>
        <source>Environment variable {env} is not set; profile(s) {profiles} read their API key from it.</source>
        <translation>环境变量 {env} 未设置；配置 {profiles} 从该变量读取 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="168"/>
        <source>Quit MediaDesk, run “export {env}=...” (the key itself) in the shell that starts it, or give those profiles api_key_keyring, then start it again.</source>
        <translation>请退出 MediaDesk，在用于启动它的 shell 中运行“export {env}=...”（填入密钥本身），或为这些配置设置 api_key_keyring，然后重新启动。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="183"/>
        <source>Submitted {added} tasks</source>
        <translation>已提交 {added} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="185"/>
        <source> ({n} already present, left unchanged)</source>
        <translation>（{n} 个已存在，保持不变）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="188"/>
        <source> ({n} earlier answers reused at no cost)</source>
        <translation>（{n} 个先前的回答被沿用，无费用）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/submission.py" line="197"/>
        <source>Demo mode: press “Load demo batch” to stage the demo tasks.</source>
        <translation>演示模式：点击“加载演示批次”来暂存演示任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="79"/>
        <source>Nothing to cancel: the selected tasks have all finished</source>
        <extracomment>Asked before cancelling from more than CONFIRM_CANCEL_ABOVE selected rows: (tasks to cancel, finished ones left as they are) -&gt; go ahead?</extracomment>
        <translation>没有可取消的：所选任务都已完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="83"/>
        <source>Nothing canceled</source>
        <translation>未取消任何任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="89"/>
        <source>Cancel requested for {n} of {m} selected tasks</source>
        <translation>已对所选 {m} 个任务中的 {n} 个请求取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="96"/>
        <source>Nothing to retry: select failed or canceled tasks</source>
        <translation>没有可重试的任务：请选择失败或已取消的任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="103"/>
        <source>Queued {n} tasks again</source>
        <translation>已将 {n} 个任务重新排队</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="123"/>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="148"/>
        <source>Nothing selected to export</source>
        <translation>未选择要导出的行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="161"/>
        <source>Export into the original spreadsheet</source>
        <translation>导出到原始表格</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="162"/>
        <source>Spreadsheets and CSV (*.xlsx *.csv)</source>
        <translation>表格和 CSV (*.xlsx *.csv)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="174"/>
        <source>Writing the results into a copy of {path}…</source>
        <translation>正在将结果写入 {path} 的副本…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="186"/>
        <source>Wrote the results of {n} tasks into {path}</source>
        <translation>已将 {n} 个任务的结果写入 {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="78"/>
        <source>1 desktop</source>
        <translation>1 台桌面</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="79"/>
        <source>{n} desktops</source>
        <translation>{n} 台桌面</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="83"/>
        <source>watching {folder}</source>
        <translation>正在监视 {folder}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="84"/>
        <source>watching {folder}, last taken: {name}</source>
        <translation>正在监视 {folder}，最近接收：{name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="93"/>
        <source>ETA — (no lane can take the queued tasks)</source>
        <translation>预计剩余 —（没有通道能接收排队中的任务）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="94"/>
        <source>ETA —</source>
        <translation>预计剩余 —</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="96"/>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="98"/>
        <source>ETA p50 {p50}, p90 {p90}</source>
        <translation>预计剩余 p50 {p50}，p90 {p90}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="100"/>
        <source>all lanes: {rate} tasks/min · {eta}</source>
        <translation>所有通道：{rate} 个任务/分钟 · {eta}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="113"/>
        <source>spent today: {amount}</source>
        <translation>今日花费：{amount}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="115"/>
        <source>used today: {n} tokens</source>
        <translation>今日用量：{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="118"/>
        <source>{spent} · stopped by a budget</source>
        <translation>{spent} · 已被预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="119"/>
        <source>stopped by a budget</source>
        <translation>已被预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="134"/>
        <source>The database file {path} was deleted or replaced while MediaDesk was running: results since then were not saved, and nothing more is dispatched. Close MediaDesk, restore the file (or choose another data folder), then start again.</source>
        <translation>数据库文件 {path} 在 MediaDesk 运行期间被删除或替换：此后的结果没有保存，也不会再派发任何任务。请关闭 MediaDesk，恢复该文件（或选择其他数据文件夹），然后重新启动。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="140"/>
        <source>The disk holding the database {path} is full ({detail}). Nothing more is dispatched; every result stored before is kept. Free some space, then restart MediaDesk: unfinished tasks resume.</source>
        <translation>存放数据库 {path} 的磁盘已满（{detail}）。不会再派发任何任务；此前保存的所有结果都会保留。请释放一些空间，然后重启 MediaDesk：未完成的任务会继续执行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="146"/>
        <source>The database {path} could not be written ({detail}). Nothing more is dispatched; what was stored is kept. Check the disk and the file&apos;s permissions, then restart MediaDesk: unfinished tasks resume.</source>
        <translation>无法写入数据库 {path}（{detail}）。不会再派发任何任务；已保存的内容会保留。请检查磁盘和该文件的权限，然后重启 MediaDesk：未完成的任务会继续执行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="152"/>
        <source>Storage failed</source>
        <translation>存储失败</translation>
    </message>
    <message>
        <source>Export results</source>
        <translation type="vanished">导出结果</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl);;CSV (*.csv)</source>
        <translation type="vanished">JSON Lines (*.jsonl);;CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="131"/>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="167"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="149"/>
        <source>No rows to export: the filters show none</source>
        <translation>没有可导出的行：当前筛选条件下没有任何行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="151"/>
        <source>Exporting to {path}…</source>
        <translation>正在导出到 {path}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/task_actions.py" line="154"/>
        <source>Exported {n} tasks to {path}</source>
        <translation>已将 {n} 个任务导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="72"/>
        <source>{total} tasks</source>
        <extracomment>The last text shown on the status line (also after it timed out).</extracomment>
        <translation>共 {total} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/status_line.py" line="74"/>
        <source>{shown} of {total} tasks shown</source>
        <translation>显示 {shown} / {total} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/attention.py" line="32"/>
        <source>Notices ({n})</source>
        <translation>通知（{n}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/attention.py" line="33"/>
        <source>Notices</source>
        <translation>通知</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/attention.py" line="49"/>
        <source>Show the notices that need you</source>
        <translation>显示需要您处理的通知</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/attention.py" line="65"/>
        <source>⚑ {n} need you</source>
        <translation>⚑ {n} 项需要您处理</translation>
    </message>
</context>
<context>
    <name>NoticesView</name>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="47"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="47"/>
        <source>What</source>
        <translation>事项</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="47"/>
        <source>What to do</source>
        <translation>处理方法</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="54"/>
        <source>Nothing needs you. Logins, bot checks, stopped endpoints, refused keys and finished batches are listed here until you have seen them.</source>
        <translation>目前没有需要您处理的事项。需要登录、人机验证、已停止的端点、被拒绝的密钥和已完成的批次都会列在这里，直到您看过为止。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="57"/>
        <source>Mark all seen</source>
        <translation>全部标为已读</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="60"/>
        <source>Clear seen</source>
        <translation>清除已读</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="62"/>
        <source>Remove the seen notices (one whose cause lasts stays until it is handled)</source>
        <translation>移除已读的通知（原因仍在的通知会保留，直到处理完毕）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="80"/>
        <source>Account {account} is logged out</source>
        <translation>账号 {account} 已退出登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="82"/>
        <source>Account {account} shows a bot check</source>
        <translation>账号 {account} 遇到人机验证</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="85"/>
        <source>Endpoint {name}</source>
        <translation>端点 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="85"/>
        <source>Account {name}</source>
        <translation>账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="86"/>
        <source>{callee} stopped taking tasks</source>
        <translation>{callee} 已停止接收任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="89"/>
        <source>The API key of {lane} was refused</source>
        <translation>{lane} 的 API 密钥被拒绝</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="92"/>
        <source>Batch finished: {ok} succeeded, {failed} failed</source>
        <translation>批次已完成：成功 {ok}，失败 {failed}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="93"/>
        <source>, {n} canceled</source>
        <translation>，{n} 个已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="95"/>
        <source>The database {path} failed ({detail})</source>
        <translation>数据库 {path} 出错（{detail}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="101"/>
        <source>Log in again; the account takes no task until then.</source>
        <translation>请重新登录；在此之前该账号不接收任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="101"/>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="103"/>
        <source>Solve the check in the account&apos;s browser; it takes no task until then.</source>
        <translation>请在该账号的浏览器中完成验证；在此之前该账号不接收任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="104"/>
        <source>Open the browser</source>
        <translation>打开浏览器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="106"/>
        <source>It is probed and resumes by itself when it answers; if it stays stopped, check its address and key in Setup.</source>
        <translation>系统会探测它，恢复响应后自动继续；如果一直停止，请在“设置”中检查其地址和密钥。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="107"/>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="110"/>
        <source>Setup…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="109"/>
        <source>Check the key (its variable or keyring entry) in Setup, then retry the failed tasks.</source>
        <translation>请在“设置”中检查密钥（其环境变量或密钥环条目），然后重试失败的任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="112"/>
        <source>Export the results, or retry the failed tasks.</source>
        <translation>导出结果，或重试失败的任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="112"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/notices_view.py" line="114"/>
        <source>Close MediaDesk, fix the disk or the file, then start again: unfinished tasks resume.</source>
        <translation>请关闭 MediaDesk，修复磁盘或文件后重新启动：未完成的任务会继续。</translation>
    </message>
</context>
<context>
    <name>PlainErrors</name>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="44"/>
        <source>could not reach the service (nothing answered at its address: is it running, is the address right?)</source>
        <extracomment>The translation context of every phrase. (fragment pattern, phrase). A phrase&apos;s ``{name}`` takes the pattern&apos;s group of that name, as stored. Most specific first; every match of every rule is replaced.</extracomment>
        <translation>无法连接到服务（该地址没有应答：服务在运行吗？地址正确吗？）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="47"/>
        <source>no answer within {seconds} s</source>
        <translation>{seconds} 秒内没有应答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="49"/>
        <source>the service took too long to answer</source>
        <translation>服务应答太慢</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="51"/>
        <source>the service closed the connection in the middle of an answer</source>
        <translation>服务在回答中途关闭了连接</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="53"/>
        <source>the connection broke while the answer was being read</source>
        <translation>读取回答时连接中断</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="57"/>
        <source>the model used up its whole answer budget (max_tokens = {limit}) thinking and wrote no answer: raise this profile&apos;s max_tokens in config.toml</source>
        <translation>模型把全部回答额度（max_tokens = {limit}）都用在了思考上，没有写出回答：请在 config.toml 中调大该配置的 max_tokens</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="63"/>
        <source>the prompt ({chars} characters with its instructions) is longer than this site takes in its box ({limit}, the site adapter&apos;s paste_limit) and the adapter cannot send it as a file, so nothing was sent: shorten the prompt, or set “attach” (the page&apos;s file input) in the site adapter</source>
        <translation>提示词（含指令共 {chars} 个字符）超出了该网站输入框能接受的长度（{limit}，即站点适配器的 paste_limit），且适配器无法把它作为文件发送，因此没有发送：请缩短提示词，或在站点适配器中设置“attach”（页面的文件输入框）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="69"/>
        <source>not logged in (the site shows its login link)</source>
        <translation>未登录（网站显示了登录链接）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="71"/>
        <source>not logged in (the page shows no sign of a logged-in account)</source>
        <translation>未登录（页面上看不到已登录账号的迹象）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="73"/>
        <source>not logged in (the page has no prompt box)</source>
        <translation>未登录（页面上没有输入框）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="75"/>
        <source>not logged in (the site asks for a password)</source>
        <translation>未登录（网站要求输入密码）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="77"/>
        <source>logged in and ready for a prompt</source>
        <translation>已登录，可以输入提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="79"/>
        <source>the Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="80"/>
        <source>the API key variable</source>
        <translation>API 密钥变量</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="81"/>
        <source>“Needs an empty prompt”</source>
        <translation>“需要空指令”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="82"/>
        <source>“Most pending tasks”</source>
        <translation>“最多待处理任务”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="83"/>
        <source>“Longest wait”</source>
        <translation>“最长等待时间”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="84"/>
        <source>“Longest run”</source>
        <translation>“最长运行时间”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="85"/>
        <source>“Longest answer”</source>
        <translation>“最长回答”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/viewmodel/plain_errors.py" line="86"/>
        <source>“Login cooldown”</source>
        <translation>“登录冷却时间”</translation>
    </message>
</context>
<context>
    <name>PreviewModel</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="133"/>
        <source>Repeats line {line}</source>
        <extracomment>The encoding a file was read in (&quot;GB18030&quot; ...); None for pasted text. &quot;jsonl&quot;, &quot;csv&quot;, &quot;xlsx&quot; or &quot;pasted&quot;; None before anything is parsed. An XLSX file: the sheet read, and every sheet of the workbook. Line -&gt; what that row repeats (a finished task of the workspace, a row above); found on the worker.</extracomment>
        <translation>与第 {line} 行重复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="135"/>
        <source>Repeats task {task} ({batch}, {date})</source>
        <translation>与任务 {task} 重复（{batch}，{date}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="136"/>
        <source>no batch</source>
        <translation>无批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="160"/>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="160"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="160"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="160"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="160"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="161"/>
        <source>Tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="181"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="207"/>
        <source>{profiles} profiles x {samples} samples = {tasks} tasks</source>
        <translation>{profiles} 个配置 × {samples} 个样本 = {tasks} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="210"/>
        <source>{profiles} profiles = {tasks} tasks</source>
        <translation>{profiles} 个配置 = {tasks} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/batch_preview.py" line="212"/>
        <source>{samples} samples = {tasks} tasks</source>
        <translation>{samples} 个样本 = {tasks} 个任务</translation>
    </message>
</context>
<context>
    <name>ProfilesEditor</name>
    <message>
        <source>Profile</source>
        <translation type="vanished">配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="70"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="70"/>
        <source>Empty prompt</source>
        <translation>空指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="70"/>
        <source>Endpoint / profile</source>
        <extracomment>Quiet hours: lane -&gt; (its profile, when its next window opens or None).</extracomment>
        <translation>端点 / 配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="71"/>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="71"/>
        <source>Gate / share</source>
        <translation>闸门 / 份额</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="71"/>
        <source>Hours</source>
        <translation>时段</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="72"/>
        <source>Tokens</source>
        <translation>令牌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="72"/>
        <source>Spent (today · in all)</source>
        <translation>花费（今日 · 累计）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="83"/>
        <source>Tokens used so far, prompt in / answer out (a ~ marks a sum that holds estimates: web tasks, servers that report no usage)</source>
        <translation>目前已用的令牌：输入（提示）/ 输出（回答）（~ 表示合计中含估算值：网页任务，或不报告用量的服务器）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="95"/>
        <source>Raise a budget cap…</source>
        <translation>提高预算上限…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="97"/>
        <source>A cap stops its endpoint, profile or batch before a task would pass it (its tasks stay pending); raise it to go on at once</source>
        <translation>上限会在任务将超出它之前停止其端点、配置或批次（任务保持待处理）；提高上限即可立即继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="171"/>
        <source>{mark}{prompt} in / {mark}{completion} out</source>
        <translation>输入 {mark}{prompt} / 输出 {mark}{completion}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="242"/>
        <source>{label} (stopping now)</source>
        <translation>{label}（正在停止）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="244"/>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="248"/>
        <source>Raise a budget cap</source>
        <translation>提高预算上限</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="244"/>
        <source>Cap:</source>
        <translation>上限：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="249"/>
        <source>New cap for {label}:</source>
        <translation>{label} 的新上限：</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="269"/>
        <source>{today} · {total}</source>
        <translation>{today} · {total}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="272"/>
        <source>{spent} · stopped by its budget</source>
        <translation>{spent} · 已被其预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="273"/>
        <source>stopped by its budget</source>
        <translation>已被其预算停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="280"/>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="288"/>
        <source>Reasoning models: send only the user&apos;s content, no instructions; applies to tasks dispatched after the change</source>
        <translation>推理模型：只发送用户内容，不发送指令；对更改之后派发的任务生效</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="292"/>
        <source>Endpoint: how many requests it may serve at once for all its profiles together (learned: the lower limit found from the provider&apos;s refusals). Profile: its share, at most this many of its own requests at once, within the endpoint&apos;s gate.</source>
        <translation>端点：它为其所有配置合计可同时处理的请求数（学得：根据服务方的拒绝找到的更低上限）。配置：它的份额，即在端点闸门之内，它自己最多可同时运行的请求数。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="297"/>
        <source>implicit: {url}</source>
        <translation>隐式：{url}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="299"/>
        <source>endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="301"/>
        <source>Profiles {profiles} give this base URL and key source themselves: they share one implicit endpoint, whose gate is the smallest of their concurrencies.</source>
        <translation>配置 {profiles} 各自指定了此基础 URL 和密钥来源：它们共享一个隐式端点，其闸门取它们并发数中的最小值。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="304"/>
        <source>Endpoint {name} ({url}) from [[endpoints]]: one gate for {profiles}.</source>
        <translation>来自 [[endpoints]] 的端点 {name}（{url}）：{profiles} 共用一个闸门。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="316"/>
        <source>web</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="316"/>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="322"/>
        <source>Empty prompt for {name}</source>
        <translation>{name} 的空指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="332"/>
        <source>How many of this profile&apos;s requests may run at once (1..{max}), within its endpoint&apos;s gate; set it to the provider&apos;s quota</source>
        <translation>此配置可同时运行的请求数（1..{max}），受其端点闸门限制；请按服务商的配额设置</translation>
    </message>
    <message>
        <source>How many requests this endpoint may run at once (1..{max}); set it to the provider&apos;s quota</source>
        <translation type="vanished">此端点可同时运行的请求数（1..{max}）；请按服务商的配额设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="340"/>
        <source>1 per account</source>
        <translation>每账号 1 个</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="341"/>
        <source>A chat account allows exactly one generation at a time; a second one at the same moment breaks both. Add accounts to go faster.</source>
        <translation>一个聊天账号同一时间只能进行一次生成；同时进行第二次会让两次都失败。想要更快，请添加账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="355"/>
        <source>gate {n}</source>
        <translation>闸门 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="359"/>
        <source>learned {n}</source>
        <translation>学得 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="360"/>
        <source>{n} in flight</source>
        <translation>进行中 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="362"/>
        <source>stopped: {reason}</source>
        <translation>已停止：{reason}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="364"/>
        <source>breaker open</source>
        <translation>熔断器已打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="364"/>
        <source>breaker half-open</source>
        <translation>熔断器半开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="372"/>
        <source>share {share} · up to {n} at once</source>
        <translation>份额 {share} · 最多同时 {n} 个</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/profiles_editor.py" line="402"/>
        <source>Could not change {name}: {error}</source>
        <translation>无法更改 {name}：{error}</translation>
    </message>
</context>
<context>
    <name>SetupEditor</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="83"/>
        <source>Setup — {path}</source>
        <extracomment>&quot;Restart lanes&quot; was clicked: the window restarts them from the saved file. What the console changed without the file (now shown, and written by Save). The window can restart the lanes from the saved file (it connects :attr:`restart_lanes`). Asked before closing with unsaved edits: () -&gt; discard them?</extracomment>
        <translation>设置 — {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="89"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="91"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="93"/>
        <source>Restart lanes</source>
        <translation>重启通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="96"/>
        <source>Stop the lanes (running tasks go back to the queue uncharged), start them again from the saved setup, and resume</source>
        <translation>停止通道（正在运行的任务回到队列，不计尝试次数），按保存的设置重新启动，然后继续</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="130"/>
        <source>Showing the values in effect, changed in the console since the file was written: {what}. Save writes them to the file.</source>
        <translation>显示的是当前生效的值，文件写入后已在控制台中更改：{what}。保存会把它们写入文件。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="142"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="151"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="173"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="143"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="154"/>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="144"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="155"/>
        <source>API key variable</source>
        <translation>API 密钥环境变量</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="145"/>
        <source>API key keyring entry</source>
        <translation>API 密钥的密钥环条目</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="146"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="157"/>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="147"/>
        <source>Requests per minute</source>
        <translation>每分钟请求数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="148"/>
        <source>Adaptive</source>
        <translation>自适应</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="152"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="153"/>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="156"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="158"/>
        <source>Stream</source>
        <translation>流式输出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="159"/>
        <source>Longest answer (chars)</source>
        <translation>最长回答（字符）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="160"/>
        <source>Site</source>
        <translation>站点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="161"/>
        <source>Chat URL</source>
        <translation>聊天 URL</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="162"/>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="163"/>
        <source>Needs an empty prompt</source>
        <translation>需要空指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="164"/>
        <source>Timeout (s)</source>
        <translation>超时（秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="165"/>
        <source>Longest run (s)</source>
        <translation>最长运行时间（秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="166"/>
        <source>Longest wait (s)</source>
        <translation>最长等待时间（秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="167"/>
        <source>Most pending tasks</source>
        <translation>最多等待中任务数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="168"/>
        <source>Fallback profiles</source>
        <translation>后备配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="169"/>
        <source>Rule reply</source>
        <translation>规则回复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="170"/>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="182"/>
        <source>Active hours (e.g. 22:00-07:00)</source>
        <translation>活动时段（例如 22:00-07:00）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="174"/>
        <source>Web profile</source>
        <translation>网页配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="175"/>
        <source>Enabled</source>
        <translation>启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="176"/>
        <source>Browser profile folder</source>
        <translation>浏览器配置文件夹</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="177"/>
        <source>Login user variable</source>
        <translation>登录用户名环境变量</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="178"/>
        <source>Login password variable</source>
        <translation>登录密码环境变量</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="179"/>
        <source>Login user keyring entry</source>
        <translation>登录用户名的密钥环条目</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="180"/>
        <source>Login password keyring entry</source>
        <translation>登录密码的密钥环条目</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="181"/>
        <source>Login cooldown (s)</source>
        <translation>登录冷却时间（秒）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="184"/>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="184"/>
        <source>Profiles</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="184"/>
        <source>Accounts</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="195"/>
        <source>Browser</source>
        <extracomment>Which browser the web accounts use, and Browse… to choose it ([browser] executable)</extracomment>
        <translation>浏览器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="199"/>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="216"/>
        <source>Check adapter</source>
        <translation>检查适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="218"/>
        <source>Opens the site on the account&apos;s profile in Chromium, reports each adapter key (found, missing, covered...) with an outlined screenshot, then sends one test prompt and shows how completion was decided</source>
        <translation>在 Chromium 中用该账号的配置文件打开网站，报告适配器的每个键（找到、缺失、被遮挡……）并附带标注了元素的截图，然后发送一条测试提示，显示如何判定回答完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="227"/>
        <source>The bundled adapters are written from public descriptions of their sites: a passing Check adapter on your account verifies one</source>
        <translation>内置适配器是根据网站的公开描述编写的：用你的账号通过一次“检查适配器”即可验证它</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="229"/>
        <source>Adapter</source>
        <translation>适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="38"/>
        <source>Opens the site in Chromium on this account&apos;s profile and says logged in or out</source>
        <translation>用此账号的浏览器配置在 Chromium 中打开站点，并显示已登录或未登录</translation>
    </message>
    <message>
        <source>Sends one cheap request (GET /models, or a one-token answer) and shows the latency</source>
        <translation type="vanished">发送一个开销很小的请求（GET /models，或只生成一个 token 的回答）并显示延迟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/entries.py" line="61"/>
        <location filename="../../mediadesk/ui/dialogs/setup/entries.py" line="140"/>
        <source>(no name)</source>
        <translation>（无名称）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/entries.py" line="94"/>
        <source>built-in</source>
        <translation>内置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/entries.py" line="95"/>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="289"/>
        <source>{n} problem(s); Save is off until they are fixed. {first}</source>
        <translation>{n} 个问题；修复之前无法保存。{first}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="293"/>
        <source>Unsaved changes.</source>
        <translation>有未保存的更改。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="65"/>
        <source>Config changed on disk</source>
        <extracomment>Asked before overwriting a file changed on disk: (message) -&gt; overwrite?</extracomment>
        <translation>配置文件已在磁盘上被更改</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="66"/>
        <source>{message}

Overwrite the file with the edits made here?</source>
        <translation>{message}

要用此处的编辑覆盖该文件吗？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="328"/>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup_editor.py" line="329"/>
        <source>Close Setup and discard the changes not saved to {path}?</source>
        <translation>关闭设置并放弃尚未保存到 {path} 的更改？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="80"/>
        <source>Not saved: {path} changed on disk. Close and reopen Setup to see that change.</source>
        <translation>未保存：{path} 已在磁盘上被更改。请关闭并重新打开设置以查看该更改。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="89"/>
        <source>Not saved: {error}</source>
        <translation>未保存：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="92"/>
        <source>Saved {path}.</source>
        <translation>已保存 {path}。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="40"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="111"/>
        <source>{profile} concurrency {n}</source>
        <translation>{profile} 并发数 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="44"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="118"/>
        <source>{profile} empty prompt {state}</source>
        <translation>{profile} 空指令 {state}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="58"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="132"/>
        <source>{account} {state}</source>
        <translation>{account} {state}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="30"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="133"/>
        <source>enabled</source>
        <translation>已启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="29"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="119"/>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="29"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="120"/>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/in_effect.py" line="31"/>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="134"/>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="124"/>
        <source>endpoint {name} concurrency {n}</source>
        <translation>端点 {name} 并发数 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="136"/>
        <source>Applied now: {what}.</source>
        <translation>已立即生效：{what}。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="141"/>
        <source>Applies when the lanes restart: {what}. Use “Restart lanes” to do it now (running tasks go back to the queue uncharged and resume).</source>
        <translation>通道重启后生效：{what}。点击“重启通道”立即生效（正在运行的任务会回到队列，不计尝试次数，然后继续）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="145"/>
        <source>Applies at the next start: {what}.</source>
        <translation>下次启动时生效：{what}。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="154"/>
        <source>endpoint {name} added</source>
        <translation>已添加端点 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="155"/>
        <source>endpoint {name} removed</source>
        <translation>已删除端点 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="156"/>
        <source>endpoint {name} changed</source>
        <translation>已更改端点 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="157"/>
        <source>profile {name} added</source>
        <translation>已添加配置 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="158"/>
        <source>profile {name} removed</source>
        <translation>已删除配置 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="159"/>
        <source>profile {name} changed</source>
        <translation>已更改配置 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="160"/>
        <source>account {name} added</source>
        <translation>已添加账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="161"/>
        <source>account {name} removed</source>
        <translation>已删除账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="162"/>
        <source>account {name} changed</source>
        <translation>已更改账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/write_through.py" line="163"/>
        <source>the browser settings changed</source>
        <translation>浏览器设置已更改</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="40"/>
        <source>Asks for a one-token answer with the API key: says whether the key works, and the latency</source>
        <translation>用 API 密钥请求一个只含一个 token 的回答：说明密钥是否有效，以及延迟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="81"/>
        <source>Fix the problems first: {first}</source>
        <translation>请先修复问题：{first}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="88"/>
        <source>Test needs the console&apos;s event loop; open Setup from the console</source>
        <translation>测试需要控制台的事件循环；请从控制台打开设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="95"/>
        <source>Testing {name}…</source>
        <translation>正在测试 {name}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="113"/>
        <source>Details: {detail}</source>
        <translation>详情：{detail}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="126"/>
        <source>a web profile is tested through its accounts</source>
        <translation>网页配置通过其账号进行测试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="129"/>
        <source>OK: the key works (a one-token answer, {seen}) in {ms:.0f} ms</source>
        <translation>正常：密钥有效（一个 token 的回答，{seen}），用时 {ms:.0f} 毫秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="133"/>
        <source>Key rejected: the endpoint refused the API key from {source} ({seen}). Set the right key there, then test again.</source>
        <translation>密钥被拒绝：端点拒绝了来自 {source} 的 API 密钥（{seen}）。请在那里设置正确的密钥，然后再测试。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="155"/>
        <source>logged in</source>
        <translation>已登录</translation>
    </message>
    <message>
        <source>OK: {seen} in {ms:.0f} ms</source>
        <translation type="vanished">正常：{seen}，用时 {ms:.0f} ms</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="136"/>
        <source>Failed after {ms:.0f} ms: {seen}</source>
        <translation>{ms:.0f} ms 后失败：{seen}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="144"/>
        <source>{name}: logged in</source>
        <translation>{name}：已登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="146"/>
        <source>{name}: logged out ({why}); use Log in on the account panel</source>
        <translation>{name}：未登录（{why}）；请在账号面板上点击“登录”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="149"/>
        <source>{name}: {error}</source>
        <translation>{name}：{error}</translation>
    </message>
    <message>
        <source>logged in ({seen})</source>
        <translation type="vanished">已登录（{seen}）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/tester.py" line="157"/>
        <source>logged out ({seen})</source>
        <translation>未登录（{seen}）</translation>
    </message>
</context>
<context>
    <name>StartingWindow</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/starting.py" line="33"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
</context>
<context>
    <name>StoppedEndpoints</name>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="55"/>
        <source>Stopped endpoints: they take no task and are not probed until you act. Set the right API key (or fix the config), then Check and resume. Their tasks wait; nothing is charged.</source>
        <extracomment>How many endpoints are stopped (for the tab title). A Resume finished: (endpoint, resumed?).</extracomment>
        <translation>已停止的端点：在您处理之前，它们不接任务，也不探测。请设置正确的 API 密钥（或修正配置），然后点“检查并恢复”。它们的任务在等待；不计任何尝试次数。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="61"/>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="61"/>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="61"/>
        <source>Since</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="61"/>
        <source>Tasks waiting</source>
        <translation>等待的任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="68"/>
        <source>Check and resume</source>
        <translation>检查并恢复</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="70"/>
        <source>Sends one one-token request with the endpoint&apos;s key; resumes the endpoint unless the key is still rejected</source>
        <translation>用该端点的密钥发送一个只请求一个 token 的请求；除非密钥仍被拒绝，否则恢复该端点</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="93"/>
        <source>{reason}; the key comes from {source}</source>
        <translation>{reason}；密钥来自 {source}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="122"/>
        <source>Checking {name}…</source>
        <translation>正在检查 {name}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="134"/>
        <source>Could not check {name}: {error}</source>
        <translation>无法检查 {name}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="138"/>
        <source>{name} resumed ({seen}); its tasks are dispatched again.</source>
        <translation>{name} 已恢复（{seen}）；它的任务重新开始分派。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="141"/>
        <source>{name}: the key is still rejected ({seen}); it stays stopped. An environment variable is read when MediaDesk starts: after changing one, restart.</source>
        <translation>{name}：密钥仍被拒绝（{seen}）；它保持停止。环境变量在 MediaDesk 启动时读取：修改后请重新启动。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/panels/stopped_endpoints.py" line="145"/>
        <source>{name}: still failing ({seen}); it stays stopped.</source>
        <translation>{name}：仍然失败（{seen}）；它保持停止。</translation>
    </message>
</context>
<context>
    <name>TableMenu</name>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="147"/>
        <source>Copy id</source>
        <extracomment>Cancelling more rows than this at once asks first (a stray Del on a select-all is costly). What an export covers: every task, the rows the filters show, or the selected rows. More entries at the end of the row menu (the grouped view&apos;s toggle).</extracomment>
        <translation>复制 ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="147"/>
        <source>Copy {n} ids</source>
        <translation>复制 {n} 个 ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="150"/>
        <source>Copy prompt</source>
        <translation>复制提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="150"/>
        <source>Copy {n} prompts</source>
        <translation>复制 {n} 条提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="153"/>
        <source>Copy result</source>
        <translation>复制结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="153"/>
        <source>Copy {n} results</source>
        <translation>复制 {n} 条结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="158"/>
        <source>Open evidence folder</source>
        <translation>打开证据文件夹</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="162"/>
        <source>This task saved no screenshot or page (only failed web runs do)</source>
        <translation>此任务没有保存截图或页面（只有失败的网页运行才会保存）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="169"/>
        <source>Show only account “{name}”</source>
        <translation>仅显示账号“{name}”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="170"/>
        <source>Show only this account</source>
        <translation>仅显示此账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="173"/>
        <source>Show only profile “{name}”</source>
        <translation>仅显示配置“{name}”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="174"/>
        <source>Show only this profile</source>
        <translation>仅显示此配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="177"/>
        <source>Show only batch “{name}”</source>
        <translation>仅显示批次“{name}”</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="178"/>
        <source>Show only this batch</source>
        <translation>仅显示此批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="180"/>
        <source>Show all tasks</source>
        <translation>显示所有任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="223"/>
        <source>Copied {n} ids</source>
        <translation>已复制 {n} 个 ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="232"/>
        <source>Copied {n} prompts</source>
        <translation>已复制 {n} 条提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="234"/>
        <source>Copied {n} results</source>
        <translation>已复制 {n} 条结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="237"/>
        <source>Could not read the tasks: {error}</source>
        <translation>无法读取任务：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="253"/>
        <source>Copied {n} rows</source>
        <translation>已复制 {n} 行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="258"/>
        <source>No evidence folder for this task</source>
        <translation>此任务没有证据文件夹</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="269"/>
        <source>Cancel {n} tasks?</source>
        <translation>取消 {n} 个任务？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="271"/>
        <source>({finished} already finished are left as they are)</source>
        <translation>（{finished} 个已完成的任务保持不变）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="273"/>
        <source>Running ones stop at their next checkpoint; canceled tasks can be retried later.</source>
        <translation>正在运行的任务会在下一个检查点停止；已取消的任务以后可以重试。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="283"/>
        <source>Cancel tasks</source>
        <translation>取消任务</translation>
    </message>
    <message>
        <source>Cancel {n} tasks? Running ones stop at their next checkpoint; canceled tasks can be retried later.</source>
        <translation type="vanished">取消 {n} 个任务？运行中的任务会在下一个检查点停止；已取消的任务之后可以重试。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="285"/>
        <source>Cancel {n} tasks</source>
        <translation>取消 {n} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="286"/>
        <source>Keep them</source>
        <translation>保留这些任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="309"/>
        <source>Export all tasks</source>
        <translation>导出所有任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="310"/>
        <source>Export filtered rows</source>
        <translation>导出筛选出的行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="311"/>
        <source>Export selected rows</source>
        <translation>导出所选行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="314"/>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines (*.jsonl)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="314"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="315"/>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/table_menu.py" line="316"/>
        <source>Markdown table (*.md)</source>
        <translation>Markdown 表格 (*.md)</translation>
    </message>
</context>
<context>
    <name>TaskGroupModel</name>
    <message>
        <location filename="../../mediadesk/ui/models/group_model.py" line="198"/>
        <source>(no batch)</source>
        <extracomment>A membership change under an active filter rebuilds the groups at most this often. (done, total, failed) on a batch row&apos;s state cell (the progress bar). True on a batch row. batch -&gt; when it was submitted (read from the store by the grouped view)</extracomment>
        <translation>（无批次）</translation>
    </message>
    <message numerus="yes">
        <location filename="../../mediadesk/ui/models/group_model.py" line="206"/>
        <source>%n failed</source>
        <translation>
            <numerusform>%n 个失败</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TaskTableModel</name>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="148"/>
        <source>id</source>
        <extracomment>Whose desktop ran the task (its host; the tooltip: the full owner). Team mode. Column names, in column order; they are also the mirror&apos;s sort keys. A burst of at least this many new rows is followed by one release of freed heap memory ... ... once no rows were inserted for this long. Alpha of the state tint behind the state cell: the shared state colours (style.py, light or dark variant) laid translucently on the palette&apos;s own base, so text stays readable in both. Raw state string (&quot;running&quot; even when displayed as stalled). The task id of the row. Emitted after a flush changed any per-profile count. Emitted after rows were inserted (argument: number of new rows). New rows applied per timed flush: a 10k-row submit becomes a few short steps between which the loop paints and runs the lanes, not one long freeze.</extracomment>
        <translation>ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="148"/>
        <source>lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="148"/>
        <source>profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="148"/>
        <source>account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="148"/>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="149"/>
        <source>attempt</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="149"/>
        <source>started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="149"/>
        <source>heartbeat</source>
        <translation>心跳</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="149"/>
        <source>duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="150"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="150"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/models/task_model.py" line="150"/>
        <source>desktop</source>
        <translation>桌面</translation>
    </message>
</context>
<context>
    <name>TrayController</name>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="228"/>
        <source>Show window</source>
        <extracomment>The tray icon&apos;s states, most urgent first: something needs the operator; every lane paused; tasks running; nothing to do. How often a console without a tray looks whether one has appeared (Qt has no signal for it). The tray icon&apos;s state (one of TRAY_STATES), kept also while there is no tray.</extracomment>
        <translation>显示窗口</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="230"/>
        <source>Pause all lanes</source>
        <translation>暂停所有通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="233"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="276"/>
        <source>MediaDesk keeps running</source>
        <translation>MediaDesk 仍在运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="277"/>
        <source>The lanes keep working; the tray icon shows the progress. Its menu brings the window back or quits.</source>
        <translation>通道继续工作；托盘图标显示进度。其菜单可恢复窗口或退出。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="299"/>
        <source> · {n} need you</source>
        <translation> · {n} 项需要您处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="302"/>
        <source>MediaDesk: {running} running, {pending} pending, {ended} done</source>
        <translation>MediaDesk：{running} 个运行中，{pending} 个待处理，{ended} 个已结束</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="70"/>
        <source>MediaDesk — welcome</source>
        <extracomment>The operator chose (a :class:`WelcomeChoice`). Where &quot;Create a workspace&quot; writes, and where the console looked for a config. &quot;Open a config...&quot;: () -&gt; the chosen file, or None. Tests replace it. &quot;Create a workspace&quot; opens the written file here: (path) -&gt; None. The in-window config editor replaces it; until then the system&apos;s editor for .toml files. Asked before anything when the template&apos;s place is taken: (path) -&gt; open it instead?</extracomment>
        <translation>MediaDesk — 欢迎</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="77"/>
        <source>Welcome to MediaDesk</source>
        <translation>欢迎使用 MediaDesk</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="95"/>
        <source>Try the demo</source>
        <translation>试用演示</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="96"/>
        <source>A ready workspace with two local simulators (a chat site and an API): no account, no network, both lanes work within a minute.</source>
        <translation>现成的工作区，带两个本地模拟器（一个聊天网站和一个 API）：无需账号、无需网络，一分钟内两个通道都会开始工作。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="99"/>
        <source>Open a config...</source>
        <translation>打开配置...</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="100"/>
        <source>You already have a MediaDesk config file (TOML): open the console with it.</source>
        <translation>已有 MediaDesk 配置文件（TOML）：用它打开控制台。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="102"/>
        <source>Create a workspace</source>
        <translation>创建工作区</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="103"/>
        <source>Write a commented config to {path} and open it for editing; the console opens with an empty workspace.</source>
        <translation>将带注释的配置写入 {path} 并打开编辑；控制台以空工作区打开。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="126"/>
        <source>From a terminal: “mediadesk demo”, “mediadesk --config FILE”, or “mediadesk init” to write the template.</source>
        <translation>在终端中：“mediadesk demo”、“mediadesk --config FILE”，或用“mediadesk init”写入模板。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="147"/>
        <source>MediaDesk runs batches of prompts over web chat accounts (in a real browser) and API models, and keeps every task and answer in a database on this computer.</source>
        <translation>MediaDesk 通过网页聊天账号（在真实浏览器中）和 API 模型批量运行提示词，并把每个任务和回答保存在本机的数据库中。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="149"/>
        <source>No workspace is open: no configuration was found at {path}.</source>
        <translation>尚未打开工作区：在 {path} 未找到配置。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="150"/>
        <source>No workspace is open: the configuration could not be used.</source>
        <translation>尚未打开工作区：配置无法使用。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="157"/>
        <source>The configuration could not be loaded:
{error}

Fix that key in the file and choose “Open a config...” to load it again, or start from the demo or a fresh workspace.</source>
        <translation>无法加载配置：
{error}

请在文件中修正该键，然后选择“打开配置...”重新加载，或从演示或新工作区开始。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="196"/>
        <source>{path} could not be written: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="482"/>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="209"/>
        <source>Open a MediaDesk config</source>
        <translation>打开 MediaDesk 配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="484"/>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="210"/>
        <source>MediaDesk config (*.toml);;All files (*)</source>
        <translation>MediaDesk 配置 (*.toml);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="215"/>
        <source>A config is already there</source>
        <translation>配置已存在</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/welcome.py" line="216"/>
        <source>{path} already exists; it is left as it is. Open it instead?</source>
        <translation>{path} 已存在，将保持不变。改为打开它吗？</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="26"/>
        <source>Submit batch…</source>
        <translation>提交批次…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="27"/>
        <source>Stage a batch from a JSONL/CSV file or pasted prompts (Ctrl+O; or drop a file on the window)</source>
        <translation>从 JSONL/CSV 文件或粘贴的提示词暂存批次（Ctrl+O；也可将文件拖放到窗口上）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="29"/>
        <location filename="../../mediadesk/ui/window/actions.py" line="133"/>
        <source>Pause web</source>
        <translation>暂停网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="30"/>
        <source>Stop dispatching new web tasks (running ones finish)</source>
        <translation>停止派发新的网页任务（正在运行的任务会继续完成）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="32"/>
        <location filename="../../mediadesk/ui/window/actions.py" line="135"/>
        <source>Pause API</source>
        <translation>暂停 API 通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="33"/>
        <source>Stop dispatching new API tasks (running ones finish)</source>
        <translation>停止派发新的 API 任务（正在运行的任务会继续完成）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="35"/>
        <source>Cancel selected</source>
        <translation>取消所选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="36"/>
        <source>Cancel the selected tasks (Del): pending ones at once, running ones at their next checkpoint</source>
        <translation>取消所选任务（Del）：等待中的任务立即取消，运行中的任务在下一个检查点取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="41"/>
        <source>Retry selected</source>
        <translation>重试所选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="42"/>
        <source>Queue the selected failed or canceled tasks again (Ctrl+R)</source>
        <translation>将所选的失败或已取消任务重新排队（Ctrl+R）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="43"/>
        <source>Export results…</source>
        <translation>导出结果…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="44"/>
        <source>Write all tasks with their results as JSONL, CSV, XLSX or a Markdown table (Ctrl+E); the arrow: only the filtered or selected rows</source>
        <translation>将所有任务及其结果导出为 JSONL、CSV、XLSX 或 Markdown 表格（Ctrl+E）；点箭头：仅导出筛选出的或所选的行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="47"/>
        <source>Export all tasks…</source>
        <translation>导出所有任务…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="48"/>
        <source>Every task in the workspace</source>
        <translation>工作区中的所有任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="49"/>
        <source>Export filtered rows…</source>
        <translation>导出筛选出的行…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="50"/>
        <source>The rows the filters show, in table order</source>
        <translation>筛选条件显示的行，按表格顺序</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="51"/>
        <source>Export selected rows…</source>
        <translation>导出所选行…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="52"/>
        <source>The selected rows, in table order</source>
        <translation>所选的行，按表格顺序</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="53"/>
        <source>Export into the original spreadsheet…</source>
        <translation>导出到原始表格…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="54"/>
        <source>A copy of a batch&apos;s .xlsx or .csv file with each row&apos;s answers, states and costs in new columns at the right</source>
        <translation>批次 .xlsx 或 .csv 文件的副本，每行的回答、状态和费用写在右侧的新列中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="63"/>
        <source>Copy rows</source>
        <translation>复制行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="64"/>
        <source>Copy the selected rows as tab-separated text (Ctrl+C)</source>
        <translation>将所选行复制为以制表符分隔的文本（Ctrl+C）</translation>
    </message>
    <message>
        <source>Write all tasks with their results as JSONL or CSV (Ctrl+E)</source>
        <translation type="vanished">将所有任务及其结果导出为 JSONL 或 CSV（Ctrl+E）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="68"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="69"/>
        <source>Load demo batch</source>
        <translation>加载演示批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="70"/>
        <source>Open the bundled demo batch in the staging dialog</source>
        <translation>在暂存对话框中打开内置的演示批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="73"/>
        <source>Open config…</source>
        <translation>打开配置…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="74"/>
        <source>Switch this console to another config and its workspace (Ctrl+Shift+O)</source>
        <translation>将此控制台切换到另一个配置及其工作区（Ctrl+Shift+O）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="76"/>
        <source>Recent configs</source>
        <translation>最近的配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="94"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="112"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="133"/>
        <source>Resume web</source>
        <translation>恢复网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/actions.py" line="135"/>
        <source>Resume API</source>
        <translation>恢复 API 通道</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="78"/>
        <source>&amp;View</source>
        <extracomment>The window&apos;s size on a first run and after View &gt; Reset layout (then fitted to the screen). Opens a folder or a document (the system&apos;s handler); tests replace it.</extracomment>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="104"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="106"/>
        <source>Stop the lanes and close MediaDesk (Ctrl+Q)</source>
        <translation>停止各通道并关闭 MediaDesk（Ctrl+Q）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="126"/>
        <source>Status bar</source>
        <translation>状态栏</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="133"/>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="135"/>
        <source>Put the docks, panes, columns and window size back as on a first start</source>
        <translation>将停靠面板、窗格、列和窗口大小恢复为首次启动时的样子</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="154"/>
        <location filename="../../mediadesk/ui/window/menus.py" line="174"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="158"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="173"/>
        <source>the system&apos;s language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="175"/>
        <source>MediaDesk will be in {language} from its next start. Close it and start it again to switch now (the lanes&apos; work is kept).</source>
        <translation>MediaDesk 将从下次启动起使用{language}。如需立即切换，请关闭后重新启动（各通道的工作会保留）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="180"/>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="183"/>
        <source>Adapter check…</source>
        <translation>适配器检查…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="184"/>
        <source>Check that a chat site&apos;s adapter still finds the page&apos;s parts (in Setup: a web profile)</source>
        <translation>检查聊天网站的适配器是否仍能找到页面元素（在“设置”中：网页配置）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="187"/>
        <source>Check all accounts…</source>
        <translation>检查所有账号…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="188"/>
        <source>Check every web account&apos;s site adapter on the live site, one after another</source>
        <translation>在真实网站上逐个检查每个网页账号的网站适配器</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="194"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="195"/>
        <source>Documentation</source>
        <translation>文档</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="197"/>
        <source>Open the documentation folder (the operator guide first)</source>
        <translation>打开文档文件夹（先看操作指南）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="198"/>
        <source>Open the data folder</source>
        <translation>打开数据文件夹</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="200"/>
        <source>The workspace: database, browser profiles, evidence</source>
        <translation>工作区：数据库、浏览器配置文件、证据</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="201"/>
        <source>Open the logs folder</source>
        <translation>打开日志文件夹</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="203"/>
        <source>The console&apos;s log (warnings and errors)</source>
        <translation>控制台日志（警告和错误）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="204"/>
        <location filename="../../mediadesk/ui/window/menus.py" line="233"/>
        <source>About MediaDesk</source>
        <translation>关于 MediaDesk</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="215"/>
        <source>{path} does not exist yet</source>
        <translation>{path} 尚不存在</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="219"/>
        <source>No program could open {path}</source>
        <translation>没有程序能打开 {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="224"/>
        <source>MediaDesk {version}</source>
        <translation>MediaDesk {version}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="225"/>
        <source>Batch text generation through chat sites and OpenAI-compatible endpoints.</source>
        <translation>通过聊天网站和 OpenAI 兼容端点批量生成文本。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="227"/>
        <source>Data folder: {path}</source>
        <translation>数据文件夹：{path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/menus.py" line="228"/>
        <source>Logs: {path}</source>
        <translation>日志：{path}</translation>
    </message>
</context>
<context>
    <name>WorkWatcher</name>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="72"/>
        <source>Endpoint stopped</source>
        <extracomment>(title, text) of a notice. The progress changed: (running, pending, ended since the last batch notice). A batch finished: (succeeded, failed, canceled).</extracomment>
        <translation>端点已停止</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="73"/>
        <source>{kind} {name} takes no task and is not probed: {what}. Its tasks wait, nothing is charged.</source>
        <translation>{kind} {name} 不接任务，也不探测：{what}。它的任务在等待，不计任何尝试次数。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="77"/>
        <source>too many failures</source>
        <translation>失败过多</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="78"/>
        <source>Breaker open</source>
        <translation>熔断器已打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="79"/>
        <source>{kind} {name} stopped taking tasks ({reason}); it is probed and resumes by itself when it answers again.</source>
        <translation>{kind} {name} 已停止接收任务（{reason}）；系统会探测它，恢复响应后自动继续。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="91"/>
        <source>Login needed</source>
        <translation>需要登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="92"/>
        <source>Account {account} is logged out and takes no task until you log in again (Accounts: Log in).</source>
        <translation>账号 {account} 已登出，重新登录前不接收任务（账号：登录）。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="117"/>
        <source>{ok} succeeded, {failed} failed</source>
        <translation>{ok} 个成功，{failed} 个失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="119"/>
        <source>, {n} canceled</source>
        <translation>，{n} 个已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/window/tray.py" line="120"/>
        <source>Batch finished</source>
        <translation>批次已完成</translation>
    </message>
</context>
<context>
    <name>WorkspaceSwitcher</name>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_session.py" line="89"/>
        <source>the demo workspace</source>
        <extracomment>``--db`` as given (a file, or a ``postgresql://`` URL: team mode); None: the config&apos;s ``db_url`` or the data dir&apos;s file.</extracomment>
        <translation>演示工作区</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="68"/>
        <source>Switch to {target}: this workspace stops; its running tasks go back to the queue and resume when this workspace is opened again.</source>
        <translation>切换到 {target}：当前工作区将停止；其运行中的任务回到队列，再次打开此工作区时继续。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="110"/>
        <source>Switch</source>
        <translation>切换</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="133"/>
        <source>{target} could not be opened:
{error}</source>
        <extracomment>The workspace that can be reopened (None: it could not be reopened either).</extracomment>
        <translation>无法打开 {target}：
{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="137"/>
        <source>Reopen {previous}</source>
        <translation>重新打开 {previous}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="139"/>
        <source>Open another config…</source>
        <translation>打开其他配置…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="224"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="253"/>
        <source>A workspace switch is already under way</source>
        <extracomment>Every switch question asked, and every start failure met (tests read them). The config error of the last refused config (its text names the key), else &quot;&quot;. Set when the operator chose Quit after a failed start: the app closes the window.</extracomment>
        <translation>工作区切换正在进行中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="237"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="267"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="282"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="290"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="372"/>
        <source>Config not opened</source>
        <translation>未打开配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="268"/>
        <source>The configuration could not be loaded:
{error}

Fix that key in the file and open it again. {current} keeps running.</source>
        <translation>无法加载配置：
{error}

请在文件中修正该键后重新打开。{current} 继续运行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="276"/>
        <source>{path} is already open</source>
        <translation>{path} 已经打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="283"/>
        <source>Setup has changes not saved to {path}: save or close it first. {current} keeps running.</source>
        <translation>设置中有尚未保存到 {path} 的更改：请先保存或关闭。{current} 继续运行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="291"/>
        <source>Another MediaDesk console already has {dir} open; it was brought to the front. {current} keeps running here.</source>
        <translation>另一个 MediaDesk 控制台已打开 {dir}，已将其切换到前台。{current} 在此继续运行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="303"/>
        <source>Nothing changed: {current} keeps running</source>
        <translation>未做更改：{current} 继续运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="324"/>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="333"/>
        <source>Lanes not restarted</source>
        <translation>通道未重启</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="325"/>
        <source>The saved configuration could not be loaded:
{error}

The lanes keep running as they are.</source>
        <translation>保存的配置无法加载：
{error}

通道保持原样继续运行。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="330"/>
        <source>the same workspace, restarted with the saved setup</source>
        <translation>同一个工作区，按保存的设置重启</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="342"/>
        <source>Lanes restarted with the saved setup</source>
        <translation>通道已按保存的设置重启</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="364"/>
        <source>Opening {target}…</source>
        <translation>正在打开 {target}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="383"/>
        <source>No workspace is open</source>
        <translation>没有打开的工作区</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="418"/>
        <source>Wait until the workspace switch is done</source>
        <translation>请等待工作区切换完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="433"/>
        <source>Opened {target}</source>
        <translation>已打开 {target}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="445"/>
        <source>{path} (not found)</source>
        <translation>{path}（未找到）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="453"/>
        <source>No recent configs</source>
        <translation>没有最近的配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="458"/>
        <source>Clear the list</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app/workspace_switch.py" line="467"/>
        <source>{path} is no longer there; removed from the recent configs</source>
        <translation>{path} 已不存在，已从最近的配置中移除</translation>
    </message>
</context>
<context>
    <name>_EntryForm</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/forms.py" line="103"/>
        <source>default: {value}</source>
        <translation>默认：{value}</translation>
    </message>
</context>
<context>
    <name>_SectionPage</name>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/forms.py" line="185"/>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/forms.py" line="186"/>
        <source>Duplicate</source>
        <translation>创建副本</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/dialogs/setup/forms.py" line="187"/>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
</context>
</TS>
