"""规则 Rules: a variant's rules doc (``docs/rules/<doc>.md``), served by the app so that the rule
names the audit page shows link somewhere that opens: the section a rule line comes from, or the
rule a verdict names, first, and the whole doc below it.

Deep links: ``/rules?doc=guilin&section=Winning shape and 胡`` (a section of a doc) and
``/rules?rule=guilin.turn`` (a verdict's rule id: its row of the doc's table). Without ``doc`` the
sidebar's variant's doc is shown. The docs are the project's own text, rendered as Markdown; the
parameters only pick among them.
"""

from __future__ import annotations

import streamlit as st

from dashboards import labels, rules_doc, ui

st.title("规则 Rules")
ss = st.session_state
names = rules_doc.docs()
rid = ui.qp("rule")
entry = rules_doc.rule(rid) if rid else None
if entry is not None and not ui.qp("doc"):
    st.query_params["doc"] = entry.doc
variant = ss.get("f_variant")
doc = ui.synced_select("规则文档 rules doc", names, "doc", key="rules_doc", default=variant if variant in names else names[0],
                       format_func=lambda d: f"{labels.name(labels.VARIANTS, d)} ({d})" if d in labels.VARIANTS
                       else rules_doc.title(d).replace("`", ""))


def _link(d: str) -> str:
    return ui.url("rules", doc=d)


if rid:
    if entry is None:
        st.warning("文档里没有这条规则 No rules doc defines the rule " + ui.lit(rid[:80]))
    else:
        with st.container(border=True):
            st.markdown(f"**规则 rule `{entry.doc}.{entry.id}`** — {entry.name}")
            st.markdown(rules_doc.markdown(entry.rule, _link))
            st.caption(f"出处 source: {entry.source} · 见 see §{entry.section}")
section = ui.qp("section", 200)
secs = rules_doc.sections(doc)
cited = rules_doc.find_section(doc, section) if section else None
if section and cited is None:
    st.caption(":material/warning: 这份文档没有这一节 the doc has no section " + ui.lit(section[:80])
               + " — showing the whole doc.")
if cited:
    with st.container(border=True):
        st.markdown(f"#### {cited}")
        st.markdown(rules_doc.markdown(next(s.text for s in secs if s.title == cited), _link))

whole = st.expander("全文 The whole doc", expanded=not (cited or entry)) if (cited or entry) else st.container()
with whole:
    for s in secs:
        if s.title:
            st.markdown("#" * min(s.level + 1, 6) + " " + s.title)
        if s.text:
            st.markdown(rules_doc.markdown(s.text, _link))
st.caption(f"docs/rules/{doc}.md — 规则文档随代码一起维护 kept with the code that replays the games; seeds are cited "
           "by file number (001 = the 桂林 seed), spec §N is the log format.")
