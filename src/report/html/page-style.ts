/** The report's stylesheet (inline; the page loads nothing from anywhere). */
export const PAGE_CSS = `
:root{--fg:#1d232a;--muted:#5f6b76;--line:#dde3e8;--bg:#f6f8fa;--card:#fff;--accent:#1f5f99;--bad:#c62828;--good:#2e8540;--warn:#e07b00;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{position:sticky;top:0;z-index:5;background:#12263a;color:#fff;padding:10px 24px;display:flex;gap:24px;align-items:baseline;flex-wrap:wrap}
header.top h1{font-size:17px;margin:0;font-weight:600}
header.top nav a{color:#cfe3f7;text-decoration:none;margin-right:14px;font-size:13px}
header.top nav a:hover{color:#fff;text-decoration:underline}
header.top .sub{color:#9fb6cc;font-size:12px}
main{max-width:1320px;margin:0 auto;padding:18px 24px 60px}
section{scroll-margin-top:96px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:0 0 18px}
section>h2{font-size:16px;margin:0 0 12px;display:flex;gap:12px;align-items:baseline}
section>h2 small{font-weight:400;color:var(--muted);font-size:12px}
h3{font-size:13.5px;margin:14px 0 6px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(190px,1fr));gap:12px;margin-bottom:14px}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:#fbfcfd}
.card .k{font-size:11.5px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums}
.card .d{font-size:12px;color:var(--muted)}
.card.bad .v{color:var(--bad)} .card.good .v{color:var(--good)}
.row{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
.row>div{min-width:260px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;background:#fafbfc;position:sticky;top:0}
td.n,th.n{text-align:right}
#breakdown-table td,#outcomes td,#violations td{white-space:nowrap}
.h{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.h h3{margin:4px 0}
tr.click{cursor:pointer} tr.click:hover td{background:#eef5fc}
tr.sel td{background:#dcecfb!important}
a{color:var(--accent)}
a.f{cursor:pointer;text-decoration:underline dotted}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:11.5px;line-height:18px;color:#fff;white-space:nowrap;margin-right:3px}
.tag{display:inline-block;padding:0 6px;border-radius:4px;font-size:11px;line-height:17px;border:1px solid var(--line);background:#f3f5f7;color:#333;margin-right:3px;white-space:nowrap}
.tag.layer{background:#eaf1fb;border-color:#b8cde8;color:#1f4b7a}
.tag.setup{background:#fff4d6;border-color:#ecd38a;color:#6b5100}
.tag.fault{background:#fdecea;border-color:#f3b7b2;color:#8e1c12}
.tag.viol{background:var(--bad);border-color:var(--bad);color:#fff}
.muted{color:var(--muted)}
.mono{font-family:var(--mono);font-size:12px}
.warn{background:#fff6e5;border:1px solid #f0cf8f;border-radius:6px;padding:6px 10px;margin:6px 0;font-size:13px}
.note{font-size:12px;color:var(--muted);margin:4px 0}
.svg svg{max-width:100%;height:auto}
.cibar{display:inline-block;position:relative;width:90px;height:8px;background:#eef1f4;border-radius:4px;vertical-align:middle;margin-left:6px}
.cibar i{position:absolute;top:0;bottom:0;background:#9cc1e6;border-radius:4px}
.cibar b{position:absolute;top:-2px;bottom:-2px;width:2px;background:#1f3b5c}
.stack{display:inline-flex;width:120px;height:10px;border-radius:3px;overflow:hidden;vertical-align:middle;background:#eef1f4}
.stack span{display:block;height:100%}
.scroll-x{overflow-x:auto;max-width:100%}
.controls{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin-bottom:10px}
.controls label{font-size:12.5px;color:var(--muted)}
select,input[type=search],button{font:inherit;font-size:13px;padding:3px 6px;border:1px solid #c5ced6;border-radius:5px;background:#fff}
button{cursor:pointer} button:disabled{opacity:.5;cursor:default}
.viewer{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.45fr);gap:16px;align-items:start}
.viewer>div{min-width:0}
.viewer .list{max-height:78vh;overflow:auto;border:1px solid var(--line);border-radius:6px}
.viewer .list table{width:100%;table-layout:fixed;font-size:12.5px}
.viewer .list th,.viewer .list td{padding:3px 6px}
#trial-list col.c-i{width:3em} #trial-list col.c-agent{width:23%} #trial-list col.c-task{width:25%} #trial-list col.c-steps{width:4.4em}
#trial-list th{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#trial-list td.wrap{white-space:normal;overflow-wrap:anywhere}
#trial-list td.wrap .tag{white-space:normal;overflow-wrap:break-word;max-width:100%;vertical-align:top}
#trial-list td.n{white-space:nowrap}
.viewer .detail{min-height:200px;max-height:78vh;overflow:auto;border:1px solid var(--line);border-radius:6px;padding:12px 14px}
.pager{display:flex;gap:8px;align-items:center;margin:6px 0;font-size:12.5px}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:12.5px;margin:6px 0 10px}
.kv dt{color:var(--muted)} .kv dd{margin:0}
.instr{background:#f7f9fb;border-left:3px solid #9cc1e6;padding:6px 10px;margin:6px 0;white-space:pre-wrap}
ul.checks{list-style:none;padding:0;margin:4px 0}
ul.checks li{padding:2px 0}
.ok{color:var(--good);font-weight:700} .no{color:var(--bad);font-weight:700}
.step{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:6px 10px;background:#fff}
.step.setup{background:#fffbef;border-style:dashed}
.step.err{border-left:4px solid var(--warn)}
.step.violated{border:2px solid var(--bad)}
.step.flash{animation:flash 1.6s ease-out}
@keyframes flash{0%{background:#ffe9a8}100%{background:#fff}}
.step .h{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.step .idx{font-weight:700;font-family:var(--mono);min-width:34px}
.step .t{font-family:var(--mono);color:var(--muted);font-size:12px}
.step .tool{font-weight:650}
.step .args{font-family:var(--mono);font-size:12px;color:#333;word-break:break-all}
pre{font-family:var(--mono);font-size:12px;background:#f7f9fb;border:1px solid #edf0f3;border-radius:4px;padding:6px 8px;margin:4px 0;white-space:pre-wrap;word-break:break-word;max-height:420px;overflow:auto}
details>summary{cursor:pointer;color:var(--muted);font-size:12.5px}
.err-box{background:#fdecea;border:1px solid #f3b7b2;padding:8px 12px;border-radius:6px}
@media (max-width:980px){.viewer{grid-template-columns:1fr}}
`;
