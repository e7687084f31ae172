<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AccountsPanel</name>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="52"/>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="53"/>
        <source>busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="54"/>
        <source>needs login</source>
        <translation>需要登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="55"/>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="56"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="57"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="102"/>
        <source>Account</source>
        <extracomment>Asked when disabling an account that has a running task: (account, running count) -&gt; choice. Replaceable (tests, or a main window that wants its own wording).</extracomment>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="102"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="102"/>
        <source>Enabled</source>
        <translation>启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="102"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="103"/>
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="192"/>
        <source>Your switch: when off, no new task is sent to this account. MediaDesk never changes it by itself.</source>
        <translation>由您控制的开关：关闭后不再向此账号派发新任务。MediaDesk 不会自行更改它。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="194"/>
        <source>Enable account {name}</source>
        <translation>启用账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="198"/>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="225"/>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="222"/>
        <source>Logging in is not available in this window</source>
        <translation>此窗口中无法登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="224"/>
        <source>Open this account&apos;s browser to log in</source>
        <translation>打开此账号的浏览器进行登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="225"/>
        <source>Logging in…</source>
        <translation>正在登录…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="274"/>
        <source>Could not change {name}: {error}</source>
        <translation>无法更改 {name}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="284"/>
        <source>Disable account</source>
        <translation>停用账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="285"/>
        <source>{name} is running a task. No new task will be sent to it. What about the running task?</source>
        <translation>{name} 正在运行一个任务。之后不会再向它派发新任务。正在运行的任务要如何处理？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="287"/>
        <source>Let the running task finish</source>
        <translation>让正在运行的任务完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="288"/>
        <source>Cancel it</source>
        <translation>取消该任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="289"/>
        <source>Keep enabled</source>
        <translation>保持启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="308"/>
        <source>Cannot log in: the event loop is not running</source>
        <translation>无法登录：事件循环未运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="335"/>
        <source>Login for {name} failed: {error}</source>
        <translation>{name} 登录失败：{error}</translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="270"/>
        <source>Submit batch</source>
        <extracomment>A preview was (re)built for the current source (also after a file-level error).</extracomment>
        <translation>提交批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="280"/>
        <source>From file</source>
        <translation>从文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="281"/>
        <source>Paste prompts</source>
        <translation>粘贴提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="285"/>
        <source>Show errors only</source>
        <translation>仅显示错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="340"/>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="342"/>
        <source>No file chosen</source>
        <translation>未选择文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="344"/>
        <source>JSONL or CSV with the fields profile, prompt and optionally id, system, priority, route_key. You can also drop a file onto this window.</source>
        <translation>JSONL 或 CSV 文件，包含字段 profile、prompt，可选 id、system、priority、route_key。也可以把文件拖放到此窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="359"/>
        <source>One prompt per line</source>
        <translation>每行一个提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="366"/>
        <source>Higher runs first</source>
        <translation>数值越大越先运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="368"/>
        <source>Empty: the profile&apos;s default instructions</source>
        <translation>留空：使用配置的默认指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="382"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="383"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="384"/>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="521"/>
        <source>Open batch file</source>
        <translation>打开批次文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="522"/>
        <source>Batch files (*.jsonl *.ndjson *.json *.csv);;All files (*)</source>
        <translation>批次文件 (*.jsonl *.ndjson *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="531"/>
        <source>This profile sends the prompt only (need_empty_prompt is on): instructions are not sent.</source>
        <translation>此配置只发送提示词（need_empty_prompt 已开启）：不会发送指令。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="585"/>
        <source>Parsing…</source>
        <translation>正在解析…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="587"/>
        <source>Nothing staged yet</source>
        <translation>尚未暂存任何内容</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="589"/>
        <source>{valid} valid, {errors} errors</source>
        <translation>{valid} 条有效，{errors} 条错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="597"/>
        <source>Submit 1 task</source>
        <translation>提交 1 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="599"/>
        <source>Submit {n} tasks</source>
        <translation>提交 {n} 个任务</translation>
    </message>
</context>
<context>
    <name>PreviewModel</name>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="202"/>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="202"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="202"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="202"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="202"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="219"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
</context>
<context>
    <name>ProfilesEditor</name>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="51"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="51"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="51"/>
        <source>Empty prompt</source>
        <translation>空指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="51"/>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="106"/>
        <source>Reasoning models: send only the user&apos;s content, no instructions; applies to tasks dispatched after the change</source>
        <translation>推理模型：只发送用户内容，不发送指令；对更改之后派发的任务生效</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="113"/>
        <source>web</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="113"/>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="119"/>
        <source>Empty prompt for {name}</source>
        <translation>{name} 的空指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="129"/>
        <source>How many requests this endpoint may run at once (1..{max}); set it to the provider&apos;s quota</source>
        <translation>此端点可同时运行的请求数（1..{max}）；请按服务商的配额设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="136"/>
        <source>1 per account</source>
        <translation>每账号 1 个</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="137"/>
        <source>A chat account allows exactly one generation at a time; a second one at the same moment breaks both. Add accounts to go faster.</source>
        <translation>一个聊天账号同一时间只能进行一次生成；同时进行第二次会让两次都失败。想要更快，请添加账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/profiles_editor.py" line="170"/>
        <source>Could not change {name}: {error}</source>
        <translation>无法更改 {name}：{error}</translation>
    </message>
</context>
<context>
    <name>TaskTableModel</name>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="180"/>
        <source>pending</source>
        <extracomment>Translucent tints: they sit on the palette&apos;s own base colour, so text stays readable in light and dark themes alike (an opaque colour would need a second palette). Raw state string (&quot;running&quot; even when displayed as stalled). The task id of the row. Emitted after a flush changed any per-profile count. Emitted after rows were inserted (argument: number of new rows). A running task whose last heartbeat is older than this shows as &quot;stalled&quot;.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="180"/>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="180"/>
        <source>stalled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="181"/>
        <source>success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="181"/>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="181"/>
        <source>canceled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="184"/>
        <source>id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="184"/>
        <source>lane</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="184"/>
        <source>profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="184"/>
        <source>account</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="184"/>
        <source>state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="185"/>
        <source>attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="185"/>
        <source>started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="185"/>
        <source>heartbeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="185"/>
        <source>duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="186"/>
        <source>prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="186"/>
        <source>error</source>
        <translation type="unfinished">错误</translation>
    </message>
</context>
</TS>
