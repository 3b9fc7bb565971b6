// The share page's CSS (page.ts), inlined in its one document.
// Light and dark as CSS variables; the hero keeps its own (white on indigo) in both.
export const STYLE = `
:root{--bg:#f6f8fa;--surface:#fff;--surface-2:#f6f8fa;--border:#d0d7de;--text:#1f2328;--muted:#59636e;--accent:#0969da;
--accent-soft:#ddf4ff;--hero:linear-gradient(135deg,#0b1d3a 0%,#0d3a7a 55%,#0a58bd 100%);
--gold:#7d4e00;--gold-bg:#fff1c2;--silver:#424a53;--silver-bg:#e6eaef;--bronze:#953800;--bronze-bg:#ffe7d6;
--adv:#1a7f37;--shadow:0 1px 2px rgba(31,35,40,.07)}
@media (prefers-color-scheme:dark){:root{--bg:#010409;--surface:#0d1117;--surface-2:#161b22;--border:#30363d;--text:#e6edf3;
--muted:#9198a1;--accent:#4493f8;--accent-soft:#102a4c;--hero:linear-gradient(135deg,#050b16 0%,#0b2550 55%,#0d4aa8 100%);
--gold:#f2cc60;--gold-bg:#3b2e0a;--silver:#d1d9e0;--silver-bg:#262c36;--bronze:#ffa657;--bronze-bg:#3d1f0b;
--adv:#3fb950;--shadow:0 1px 2px rgba(0,0,0,.5)}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
-webkit-font-smoothing:antialiased}
h1,h2,h3{margin:0;line-height:1.25}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:6px}
.p-wrap{max-width:1400px;margin:0 auto;padding:0 16px}
.p-hero{background:var(--hero);color:#fff;padding:20px 0 0}
.p-hero .p-wrap{padding-bottom:20px}
.p-topline{display:flex;align-items:flex-start;justify-content:space-between;gap:12px}
.p-eyebrow{flex:1 1 0;min-width:0;padding-top:3px;margin:0;font-size:14px;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:#dbeafe}
.p-conn{display:inline-flex;align-items:center;gap:8px;font-size:14px;color:#dbeafe;padding:3px 12px;border-radius:999px;
background:rgba(255,255,255,.1);flex:none}
.p-dot{width:8px;height:8px;border-radius:50%;background:#94a3b8}
.p-conn[data-state=live] .p-dot{background:#4ade80;box-shadow:0 0 0 3px rgba(74,222,128,.25)}
.p-conn[data-state=reconnecting] .p-dot{background:#fbbf24}
.p-conn[data-state=offline] .p-dot{background:#f87171}
.p-hero h1{margin:10px 0 6px;font-size:clamp(1.75rem,4.5vw,2.6rem);font-weight:800;letter-spacing:-.02em;overflow-wrap:anywhere}
.p-desc{margin:0 0 4px;max-width:70ch;color:#dbeafe;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;
overflow-wrap:anywhere}
.p-chips{list-style:none;margin:14px 0 0;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.p-chip{display:inline-flex;align-items:center;gap:6px;font-size:14px;font-weight:500;padding:4px 12px;border-radius:999px;
background:rgba(255,255,255,.12);border:1px solid rgba(255,255,255,.22);color:#fff;max-width:100%;overflow-wrap:anywhere}
.p-chip[data-kind=ongoing]{background:#cf222e;border-color:#cf222e}
.p-chip[data-kind=registration]{background:#0550ae;border-color:#0550ae}
.p-chip[data-kind=completed]{background:#1a7f37;border-color:#1a7f37}
.p-chip[data-kind=champion]{background:#fef3c7;border-color:#fef3c7;color:#713f12;font-weight:700}
.p-tabs{display:flex;gap:6px;margin:18px 0 -20px;overflow-x:auto;scrollbar-width:none}
.p-tab{font:inherit;font-size:15px;font-weight:600;color:#dbeafe;background:transparent;border:0;border-radius:10px 10px 0 0;
padding:10px 16px;cursor:pointer;white-space:nowrap;display:flex;flex-direction:column;align-items:flex-start;gap:0}
.p-tab small{font-size:14px;font-weight:500;opacity:.9}
.p-tab:hover{background:rgba(255,255,255,.1)}
.p-tab[aria-selected=true]{background:var(--bg);color:var(--text)}
.p-tab[aria-selected=true] small{color:var(--muted);opacity:1}
.p-main{padding-top:24px;padding-bottom:8px;display:grid;gap:20px}
.p-card{background:var(--surface);border:1px solid var(--border);border-radius:16px;box-shadow:var(--shadow);padding:20px;min-width:0}
.p-card-head{display:flex;align-items:baseline;justify-content:space-between;gap:12px;flex-wrap:wrap;margin-bottom:14px}
.p-card h2{font-size:1.2rem;font-weight:700}
.p-sub{font-size:14px;color:var(--muted)}
.p-frame{position:relative;margin:0 -20px}
.p-frame[data-more]::after{content:"";position:absolute;top:0;right:0;bottom:0;width:56px;pointer-events:none;
background:linear-gradient(to right,transparent,var(--surface))}
.p-bracket{overflow-x:auto;overflow-y:hidden;padding:0 20px 4px;overscroll-behavior-x:contain}
.p-bracket svg{display:block;margin:0 auto;max-width:none;height:auto}
.p-hint{margin:8px 0 0;font-size:14px;color:var(--muted)}
.p-empty{margin:0;padding:28px 12px;text-align:center;color:var(--muted);background:var(--surface-2);border-radius:12px}
.p-columns{display:grid;gap:20px;grid-template-columns:minmax(0,1fr);align-items:start}
@media (min-width:900px){.p-columns{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}}
.p-group+.p-group{margin-top:20px}
.p-group h3{font-size:15px;font-weight:700;margin:0 0 6px;color:var(--accent)}
.p-table{width:100%;border-collapse:collapse;font-size:15px;table-layout:fixed}
.p-table th{font-size:14px;font-weight:600;color:var(--muted);text-align:left;padding:6px 8px;border-bottom:1px solid var(--border)}
.p-table td{padding:9px 8px;border-bottom:1px solid var(--border);vertical-align:middle}
.p-table tr:last-child td{border-bottom:0}
.p-table .p-n{text-align:right;font-variant-numeric:tabular-nums;width:3.25em}
.p-table .p-pos{width:3.25em}
.p-place{display:inline-grid;place-items:center;min-width:28px;height:28px;padding:0 6px;border-radius:8px;background:var(--surface-2);
font-weight:700;font-size:14px;font-variant-numeric:tabular-nums}
.p-place[data-place="1"]{background:var(--gold-bg);color:var(--gold)}
.p-place[data-place="2"]{background:var(--silver-bg);color:var(--silver)}
.p-place[data-place="3"]{background:var(--bronze-bg);color:var(--bronze)}
.p-adv td:first-child{box-shadow:inset 3px 0 0 var(--adv)}
.p-table th.p-team{font-size:inherit;font-weight:inherit;color:inherit;text-align:left;padding:9px 8px;border-bottom:1px solid var(--border)}
.p-table tr:last-child th{border-bottom:0}
.p-tname{font-weight:600;overflow-wrap:break-word;min-width:0}
.p-ttag{margin-left:8px;font-size:14px;color:var(--muted);white-space:nowrap}
.p-legend{margin:10px 0 0;font-size:14px;color:var(--muted);display:flex;align-items:center;gap:8px}
.p-legend::before{content:"";width:12px;height:12px;border-radius:3px;background:var(--adv)}
.p-list{list-style:none;margin:0;padding:0;display:grid;gap:10px}
.p-up{border:1px solid var(--border);border-radius:12px;padding:10px 14px;background:var(--surface-2)}
.p-up-top{display:flex;justify-content:space-between;gap:8px;flex-wrap:wrap;font-size:14px;color:var(--muted)}
.p-up-time{font-weight:600;color:var(--text)}
.p-up-time[data-unscheduled]{font-weight:500;color:var(--muted)}
.p-up-team{display:flex;align-items:baseline;gap:8px;padding:4px 0}
.p-up-team+.p-up-team{border-top:1px dashed var(--border)}
.p-up-team .p-ttag{margin-left:auto}
.p-up-top{margin-bottom:4px}
.p-badge{display:inline-block;font-size:14px;font-weight:600;padding:0 8px;border-radius:6px;background:var(--accent-soft);color:var(--accent)}
.p-report{background:var(--gold-bg);color:var(--gold)}
.p-more{margin:10px 0 0;font-size:14px;color:var(--muted)}
.p-teams{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:8px}
.p-teams li{padding:10px 12px;border:1px solid var(--border);border-radius:10px;background:var(--surface-2)}
.p-lus{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:12px;align-items:start}
.p-lu{border:1px solid var(--border);border-radius:12px;background:var(--surface-2);padding:10px 14px 12px;min-width:0}
.p-lu-team{display:flex;align-items:baseline;gap:8px;font-size:16px;margin:0 0 6px;padding-bottom:8px;border-bottom:1px solid var(--border)}
.p-lu-team .p-ttag{margin-left:auto}
.p-lu-list{list-style:none;margin:0;padding:0}
.p-lu-entry{display:flex;align-items:baseline;gap:6px;padding:3px 0;font-size:15px}
.p-lu-entry[data-role=player]+.p-lu-entry:not([data-role=player]){margin-top:4px;padding-top:7px;border-top:1px dashed var(--border)}
.p-lu-handle{font-weight:500;overflow-wrap:anywhere;min-width:0}
.p-lu-entry:not([data-role=player]) .p-lu-handle{color:var(--muted)}
.p-lu-cap{font-size:14px;font-weight:700;color:var(--accent);text-decoration:none;cursor:help;flex:none}
.p-lu-role{flex:none}
.p-lu-entry[data-role=coach] .p-lu-role{background:var(--silver-bg);color:var(--silver)}
.p-lu-country{margin-left:auto;padding-left:8px;font-size:14px;font-weight:600;letter-spacing:.04em;color:var(--muted);flex:none}
.p-lu-none{margin:0;font-size:14px;color:var(--muted)}
.p-ffa{display:grid;gap:20px}
.p-round h3{font-size:15px;font-weight:700;margin:0 0 8px;color:var(--accent)}
.p-lobbies{display:grid;gap:16px;grid-template-columns:repeat(auto-fill,minmax(min(100%,calc(360px + var(--games,1) * 72px)),1fr))}
.p-lobby{border:1px solid var(--border);border-radius:12px;background:var(--surface-2);padding:10px 12px 4px;min-width:0}
.p-lobby-head{display:flex;align-items:baseline;justify-content:space-between;gap:8px;flex-wrap:wrap;margin:0 0 2px;font-size:16px;
font-weight:700}
.p-lb-scroll{overflow-x:auto}
.p-table.p-lb{min-width:calc(13em + var(--games,1) * 4.75em)}
.p-lb th,.p-lb td{padding:6px;white-space:nowrap}
.p-lb .p-n{width:2.75em;text-align:center}
.p-lb .p-g{width:4.75em}
.p-lb th.p-pts{width:3.5em}
.p-lb td.p-lb-team{white-space:normal;overflow-wrap:anywhere}
.p-lb .p-ttag{display:block;margin-left:0}
.p-lb .p-pts,.p-lb .p-first{font-weight:700}
.p-lb .p-dash{color:var(--muted)}
.p-lb tr.p-win td{background:var(--accent-soft)}
.p-lb-games{display:none}
.p-lb-games span{white-space:nowrap}
.p-notice{text-align:center;padding:48px 20px}
.p-notice h2{font-size:1.4rem;margin-bottom:8px}
.p-notice p{margin:0 auto;max-width:52ch;color:var(--muted)}
.p-notice code{font-size:14px;background:var(--surface-2);padding:2px 6px;border-radius:6px;overflow-wrap:anywhere}
.p-notice-icon{width:56px;height:56px;margin:0 auto 16px;border-radius:50%;display:grid;place-items:center;background:var(--accent-soft);
color:var(--accent);font-size:28px;font-weight:800}
.p-foot{padding-top:8px;padding-bottom:28px;font-size:14px;color:var(--muted);text-align:center}
@media (max-width:600px){.p-card{padding:16px;border-radius:14px}.p-frame{margin:0 -16px}.p-bracket{padding:0 16px 4px}
.p-table td,.p-table th{padding-left:5px;padding-right:5px}.p-table .p-n{width:2.5em}.p-table .p-pos{width:2.6em}
.p-table .p-ttag{display:block;margin-left:0}
.p-table.p-lb{min-width:0}.p-lb .p-g{display:none}.p-lb-games{display:flex;flex-wrap:wrap;gap:0 12px;font-size:14px;color:var(--muted)}}
`;
