<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AccountsPanel</name>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="91"/>
        <source>Account</source>
        <extracomment>Asked when disabling an account that has a running task: (account, running count) -&gt; choice. Replaceable (tests, or a main window that wants its own wording).</extracomment>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="91"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="91"/>
        <source>Enabled</source>
        <translation>启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="91"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="92"/>
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="181"/>
        <source>Your switch: when off, no new task is sent to this account. MediaDesk never changes it by itself.</source>
        <translation>由您控制的开关：关闭后不再向此账号派发新任务。MediaDesk 不会自行更改它。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="183"/>
        <source>Enable account {name}</source>
        <translation>启用账号 {name}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="187"/>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="214"/>
        <source>Log in</source>
        <translation>登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="211"/>
        <source>Logging in is not available in this window</source>
        <translation>此窗口中无法登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="213"/>
        <source>Open this account&apos;s browser to log in</source>
        <translation>打开此账号的浏览器进行登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="214"/>
        <source>Logging in…</source>
        <translation>正在登录…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="259"/>
        <source>Could not change {name}: {error}</source>
        <translation>无法更改 {name}：{error}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="269"/>
        <source>Disable account</source>
        <translation>停用账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="270"/>
        <source>{name} is running a task. No new task will be sent to it. What about the running task?</source>
        <translation>{name} 正在运行一个任务。之后不会再向它派发新任务。正在运行的任务要如何处理？</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="272"/>
        <source>Let the running task finish</source>
        <translation>让正在运行的任务完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="273"/>
        <source>Cancel it</source>
        <translation>取消该任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="274"/>
        <source>Keep enabled</source>
        <translation>保持启用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="293"/>
        <source>Cannot log in: the event loop is not running</source>
        <translation>无法登录：事件循环未运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/accounts_panel.py" line="320"/>
        <source>Login for {name} failed: {error}</source>
        <translation>{name} 登录失败：{error}</translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="95"/>
        <source>Submit batch</source>
        <extracomment>A preview was (re)built for the current source (also after a file-level error).</extracomment>
        <translation>提交批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="105"/>
        <source>From file</source>
        <translation>从文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="106"/>
        <source>Paste prompts</source>
        <translation>粘贴提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="110"/>
        <source>Show errors only</source>
        <translation>仅显示错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="165"/>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="167"/>
        <source>No file chosen</source>
        <translation>未选择文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="169"/>
        <source>JSONL or CSV with the fields profile, prompt and optionally id, system, priority, route_key. You can also drop a file onto this window.</source>
        <translation>JSONL 或 CSV 文件，包含字段 profile、prompt，可选 id、system、priority、route_key。也可以把文件拖放到此窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="184"/>
        <source>One prompt per line</source>
        <translation>每行一个提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="191"/>
        <source>Higher runs first</source>
        <translation>数值越大越先运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="193"/>
        <source>Empty: the profile&apos;s default instructions</source>
        <translation>留空：使用配置的默认指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="207"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="208"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="209"/>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="353"/>
        <source>Open batch file</source>
        <translation>打开批次文件</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="354"/>
        <source>Batch files (*.jsonl *.ndjson *.json *.csv);;All files (*)</source>
        <translation>批次文件 (*.jsonl *.ndjson *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="363"/>
        <source>This profile sends the prompt only (need_empty_prompt is on): instructions are not sent.</source>
        <translation>此配置只发送提示词（need_empty_prompt 已开启）：不会发送指令。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="417"/>
        <source>Parsing…</source>
        <translation>正在解析…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="419"/>
        <source>Nothing staged yet</source>
        <translation>尚未暂存任何内容</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="421"/>
        <source>{valid} valid, {errors} errors</source>
        <translation>{valid} 条有效，{errors} 条错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="429"/>
        <source>Submit 1 task</source>
        <translation>提交 1 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_dialog.py" line="431"/>
        <source>Submit {n} tasks</source>
        <translation>提交 {n} 个任务</translation>
    </message>
</context>
<context>
    <name>Console</name>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="67"/>
        <source>{path}: config file not found (pass --config FILE, or try the demo with --demo)</source>
        <translation>{path}：找不到配置文件（请用 --config FILE 指定，或用 --demo 试用演示）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="122"/>
        <source>MediaDesk: configuration error</source>
        <translation>MediaDesk：配置错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="137"/>
        <source>a console is already open for {dir}; switched to it.</source>
        <translation>{dir} 的控制台已经打开，已切换到该窗口。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="145"/>
        <location filename="../../mediadesk/ui/app.py" line="156"/>
        <source>MediaDesk is already running</source>
        <translation>MediaDesk 已在运行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="153"/>
        <source>MediaDesk: database in use</source>
        <translation>MediaDesk：数据库正被占用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="159"/>
        <source>MediaDesk: cannot start</source>
        <translation>MediaDesk：无法启动</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/app.py" line="162"/>
        <source>MediaDesk: database error</source>
        <translation>MediaDesk：数据库错误</translation>
    </message>
</context>
<context>
    <name>DetailPane</name>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="95"/>
        <location filename="../../mediadesk/ui/detail_pane.py" line="165"/>
        <source>No task selected.</source>
        <extracomment>A file path from the log was clicked (after it was handed to the desktop to open). The record for the current task was (re)loaded. Opens a clicked path (the desktop&apos;s default application); replaceable in tests.</extracomment>
        <translation>未选择任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="105"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="108"/>
        <source>result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="109"/>
        <source>Copy result</source>
        <translation>复制结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="116"/>
        <source>task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="121"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="124"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="132"/>
        <source>Task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="167"/>
        <source>{id} — loading…</source>
        <translation>{id} — 正在加载…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="218"/>
        <source>{id} — not found</source>
        <translation>{id} — 未找到</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="223"/>
        <source>&lt;b&gt;{id}&lt;/b&gt; · {state} · attempt {attempt} · {profile} · {where}</source>
        <translation>&lt;b&gt;{id}&lt;/b&gt; · {state} · 第 {attempt} 次尝试 · {profile} · {where}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/detail_pane.py" line="233"/>
        <source>error: {kind}: {message}</source>
        <translation>错误：{kind}：{message}</translation>
    </message>
</context>
<context>
    <name>ExceptionsView</name>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="80"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="80"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="80"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="80"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="88"/>
        <source>Show resolved</source>
        <translation>显示已处理</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="91"/>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="249"/>
        <source>No exception selected.</source>
        <translation>未选择异常。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="100"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="108"/>
        <source>task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="111"/>
        <source>note (kept with the decision)</source>
        <translation>备注（随处理决定一并保存）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="113"/>
        <source>the answer, pasted by hand</source>
        <translation>手工粘贴的回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="115"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="116"/>
        <source>Re-route to</source>
        <translation>改派到</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="119"/>
        <source>Answer by hand</source>
        <translation>手工回答</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="120"/>
        <source>Drop</source>
        <translation>放弃</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="139"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="142"/>
        <source>Task log</source>
        <translation>任务日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="193"/>
        <source>resolved: {r}</source>
        <translation>已处理：{r}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="209"/>
        <source>Select an exception first.</source>
        <translation>请先选择一个异常。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="217"/>
        <source>Could not resolve {id}: {why}</source>
        <translation>无法处理 {id}：{why}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="219"/>
        <source>{id}: {action} done.</source>
        <translation>{id}：{action} 已完成。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="253"/>
        <source>&lt;b&gt;{id}&lt;/b&gt; · {profile} · attempt {attempt}</source>
        <translation>&lt;b&gt;{id}&lt;/b&gt; · {profile} · 第 {attempt} 次尝试</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="256"/>
        <source>resolved: {r} {note}</source>
        <translation>已处理：{r} {note}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="259"/>
        <source>error: {kind}: {message}</source>
        <translation>错误：{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="275"/>
        <source>Evidence: {links}</source>
        <translation>证据：{links}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/exceptions_view.py" line="277"/>
        <source>No evidence files.</source>
        <translation>没有证据文件。</translation>
    </message>
</context>
<context>
    <name>FilterBar</name>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="27"/>
        <source>Filter</source>
        <extracomment>Typing pauses this long before the table is filtered (each pass over 100k rows costs ~0.2 s).</extracomment>
        <translation>筛选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="30"/>
        <source>All lanes</source>
        <translation>所有通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="31"/>
        <source>Web</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="32"/>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="34"/>
        <source>All states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="39"/>
        <source>All profiles</source>
        <translation>所有配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/filter_bar.py" line="45"/>
        <source>Search id, prompt, error… (Ctrl+F)</source>
        <translation>搜索 ID、提示词、错误…（Ctrl+F）</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="55"/>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="57"/>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="59"/>
        <source>{h} h {m} min</source>
        <translation>{h} 小时 {m} 分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="66"/>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="67"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="68"/>
        <source>stalled</source>
        <translation>停滞</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="69"/>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="70"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="71"/>
        <source>canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="80"/>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="81"/>
        <source>busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="82"/>
        <source>needs login</source>
        <translation>需要登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="83"/>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="84"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/format.py" line="85"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
</context>
<context>
    <name>LanePanel</name>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="87"/>
        <source>Web lane</source>
        <translation>网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="87"/>
        <source>API lane</source>
        <translation>API 通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="107"/>
        <source>gate: requests allowed at once now / configured (an adaptive gate learns the provider&apos;s real limit from its refusals); breaker: open = nothing is sent there until a probe succeeds</source>
        <extracomment>The callees&apos; gates and breakers (an API endpoint is shared by its profiles) and backlog.</extracomment>
        <translation>闸门：当前允许的并发请求数 / 配置值（自适应闸门会根据服务方的拒绝学习其真实上限）；熔断器：打开 = 在探测成功之前不向该处发送任何请求</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="110"/>
        <source>Estimated time until this lane&apos;s queued and running tasks are done, from the lane&apos;s own recent run times: p50 = median case, p90 = slow case.</source>
        <translation>根据此通道最近的运行耗时，估算其排队中和运行中的任务全部完成所需的时间：p50 = 中位情况，p90 = 较慢情况。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="115"/>
        <source>account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="115"/>
        <source>profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="115"/>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="115"/>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="116"/>
        <source>elapsed</source>
        <translation>已用时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="116"/>
        <source>heartbeat</source>
        <translation>心跳</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="116"/>
        <source>settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="122"/>
        <source>No web accounts configured.</source>
        <translation>尚未配置网页账号。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="123"/>
        <source>No API profiles configured.</source>
        <translation>尚未配置 API 配置。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="230"/>
        <source>no tasks</source>
        <translation>暂无任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="235"/>
        <source>running {run} · pending {pend} · done {ok} · failed {fail} · canceled {canc}</source>
        <translation>运行中 {run} · 等待中 {pend} · 成功 {ok} · 失败 {fail} · 已取消 {canc}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="247"/>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="249"/>
        <source>partly paused</source>
        <translation>部分暂停</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="275"/>
        <source>{name}: gate {cur}/{limit}, {n} in flight</source>
        <translation>{name}：闸门 {cur}/{limit}，进行中 {n}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="278"/>
        <source>paused {s}</source>
        <translation>暂停 {s}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="280"/>
        <source>breaker open</source>
        <translation>熔断器已打开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="280"/>
        <source>breaker half-open</source>
        <translation>熔断器半开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="283"/>
        <source>, next probe in {s}</source>
        <translation>，{s} 后下次探测</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="287"/>
        <source>backlog: high {h} · normal {n} · low {low}</source>
        <translation>积压：高 {h} · 普通 {n} · 低 {low}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="294"/>
        <source>{n:.1f} tasks/min</source>
        <translation>{n:.1f} 个任务/分钟</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="297"/>
        <source>ETA — (no lane can take the queued tasks) · {rate}</source>
        <translation>预计剩余 —（没有通道能接收排队中的任务）· {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="298"/>
        <source>ETA — (no finished run yet) · {rate}</source>
        <translation>预计剩余 —（尚无已完成的运行）· {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="300"/>
        <source>idle · {rate}</source>
        <translation>空闲 · {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="301"/>
        <source>ETA p50 {p50}, p90 {p90} · {rate}</source>
        <translation>预计剩余 p50 {p50}，p90 {p90} · {rate}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="331"/>
        <location filename="../../mediadesk/ui/lane_panel.py" line="362"/>
        <source>{status} (paused)</source>
        <translation>{status}（已暂停）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="360"/>
        <source>{n}/{cap} running</source>
        <translation>运行中 {n}/{cap}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="366"/>
        <source>empty prompt: on</source>
        <translation>空指令：开</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="366"/>
        <source>empty prompt: off</source>
        <translation>空指令：关</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/lane_panel.py" line="377"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
</context>
<context>
    <name>LogDock</name>
    <message>
        <location filename="../../mediadesk/ui/log_dock.py" line="37"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/log_dock.py" line="44"/>
        <source>Filter log (text, lane, task id)…</source>
        <translation>筛选日志（文本、通道、任务 ID）…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/log_dock.py" line="46"/>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="84"/>
        <source>MediaDesk — {dir}</source>
        <extracomment>Tasks per submit transaction for big batches (see submit_rows_async). The window was closed by the operator (the app then stops the scheduler and quits).</extracomment>
        <translation>MediaDesk — {dir}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="168"/>
        <source>Accounts</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="170"/>
        <source>Profiles</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="183"/>
        <source>Exceptions ({n})</source>
        <translation>异常 ({n})</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="294"/>
        <source>Opening a browser to log in {0}...</source>
        <translation>正在打开浏览器以登录 {0}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="298"/>
        <source>Login for {0} failed: {1}</source>
        <translation>{0} 登录失败：{1}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="301"/>
        <source>{0} is logged in</source>
        <translation>{0} 已登录</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="303"/>
        <source>Login for {0} was not completed</source>
        <translation>{0} 的登录未完成</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="313"/>
        <location filename="../../mediadesk/ui/main_window.py" line="330"/>
        <source>Batch not submitted</source>
        <translation>批次未提交</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="339"/>
        <source>Submitting… {n} of {m}</source>
        <translation>正在提交… {n}/{m}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="353"/>
        <source>Submitted {added} tasks</source>
        <translation>已提交 {added} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="355"/>
        <source> ({n} already present, left unchanged)</source>
        <translation>（{n} 个已存在，保持不变）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="365"/>
        <source>Demo mode: press “Load demo batch” to stage the demo tasks.</source>
        <translation>演示模式：点击“加载演示批次”来暂存演示任务。</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="381"/>
        <source>Cancel requested for {n} of {m} selected tasks</source>
        <translation>已对所选 {m} 个任务中的 {n} 个请求取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="387"/>
        <source>Nothing to retry: select failed or canceled tasks</source>
        <translation>没有可重试的任务：请选择失败或已取消的任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="390"/>
        <source>Queued {n} tasks again</source>
        <translation>已将 {n} 个任务重新排队</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="407"/>
        <source>Export results</source>
        <translation>导出结果</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="408"/>
        <source>JSON Lines (*.jsonl);;CSV (*.csv)</source>
        <translation>JSON Lines (*.jsonl);;CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="414"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="420"/>
        <source>Exporting to {path}…</source>
        <translation>正在导出到 {path}…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="422"/>
        <source>Exported {n} tasks to {path}</source>
        <translation>已将 {n} 个任务导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="448"/>
        <source>{total} tasks</source>
        <translation>共 {total} 个任务</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/main_window.py" line="450"/>
        <source>{shown} of {total} tasks shown</source>
        <translation>显示 {shown} / {total} 个任务</translation>
    </message>
</context>
<context>
    <name>PreviewModel</name>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="128"/>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="128"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="128"/>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="128"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="128"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/batch_preview.py" line="145"/>
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
        <location filename="../../mediadesk/ui/task_model.py" line="131"/>
        <source>id</source>
        <extracomment>Column names, in column order; they are also the mirror&apos;s sort keys. Alpha of the state tint behind the state cell: the shared state colours (style.py, light or dark variant) laid translucently on the palette&apos;s own base, so text stays readable in both. Raw state string (&quot;running&quot; even when displayed as stalled). The task id of the row. Emitted after a flush changed any per-profile count. Emitted after rows were inserted (argument: number of new rows). New rows applied per timed flush: a 10k-row submit becomes a few short steps between which the loop paints and runs the lanes, not one long freeze.</extracomment>
        <translation>ID</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="131"/>
        <source>lane</source>
        <translation>通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="131"/>
        <source>profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="131"/>
        <source>account</source>
        <translation>账号</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="131"/>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="132"/>
        <source>attempt</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="132"/>
        <source>started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="132"/>
        <source>heartbeat</source>
        <translation>心跳</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="132"/>
        <source>duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="133"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/task_model.py" line="133"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="24"/>
        <source>Submit batch…</source>
        <translation>提交批次…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="25"/>
        <source>Stage a batch from a JSONL/CSV file or pasted prompts (Ctrl+O; or drop a file on the window)</source>
        <translation>从 JSONL/CSV 文件或粘贴的提示词暂存批次（Ctrl+O；也可将文件拖放到窗口上）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="27"/>
        <location filename="../../mediadesk/ui/actions.py" line="87"/>
        <source>Pause web</source>
        <translation>暂停网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="28"/>
        <source>Stop dispatching new web tasks (running ones finish)</source>
        <translation>停止派发新的网页任务（正在运行的任务会继续完成）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="30"/>
        <location filename="../../mediadesk/ui/actions.py" line="89"/>
        <source>Pause API</source>
        <translation>暂停 API 通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="31"/>
        <source>Stop dispatching new API tasks (running ones finish)</source>
        <translation>停止派发新的 API 任务（正在运行的任务会继续完成）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="33"/>
        <source>Cancel selected</source>
        <translation>取消所选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="34"/>
        <source>Cancel the selected tasks (Del): pending ones at once, running ones at their next checkpoint</source>
        <translation>取消所选任务（Del）：等待中的任务立即取消，运行中的任务在下一个检查点取消</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="39"/>
        <source>Retry selected</source>
        <translation>重试所选</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="40"/>
        <source>Queue the selected failed or canceled tasks again (Ctrl+R)</source>
        <translation>将所选的失败或已取消任务重新排队（Ctrl+R）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="41"/>
        <source>Export results…</source>
        <translation>导出结果…</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="42"/>
        <source>Write all tasks with their results as JSONL or CSV (Ctrl+E)</source>
        <translation>将所有任务及其结果导出为 JSONL 或 CSV（Ctrl+E）</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="43"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="44"/>
        <source>Load demo batch</source>
        <translation>加载演示批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="45"/>
        <source>Open the bundled demo batch in the staging dialog</source>
        <translation>在暂存对话框中打开内置的演示批次</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="63"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="87"/>
        <source>Resume web</source>
        <translation>恢复网页通道</translation>
    </message>
    <message>
        <location filename="../../mediadesk/ui/actions.py" line="89"/>
        <source>Resume API</source>
        <translation>恢复 API 通道</translation>
    </message>
</context>
</TS>
