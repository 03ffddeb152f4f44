"""The pages' words in English and Chinese, and which language a request gets.

A small table instead of gettext: two languages, a few dozen strings, and a
test that checks both columns have the same keys. The language is chosen in
the order the issue fixes: ``?lang=``, then the ``lang`` cookie (set when a
reader picks a language), then Accept-Language, then ``ERRKB_DEFAULT_LANG``.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.http.clients import LANGS, negotiate_lang

LANG_COOKIE = "errkb_lang"
LANG_NAMES = {"en": "English", "zh": "中文"}

MESSAGES: Mapping[str, Mapping[str, str]] = {
    "en": {
        "tagline": "Paste the traceback. Get the fix.",
        "nav_paste": "Match a log",
        "nav_articles": "Articles",
        "nav_unmatched": "Unknown errors",
        "paste_title": "What killed your run?",
        "paste_lead": (
            "Paste a traceback or a whole job log (all ranks welcome), or drop the log file. "
            "errkb finds the root cause and the article that fixes it."
        ),
        "paste_placeholder": "Traceback (most recent call last):\n  ...",
        "paste_text_label": "Traceback or log",
        "paste_file_label": "…or upload a log file (.log, .txt, .gz)",
        "paste_drop": "Drop a log file here",
        "paste_submit": "Find the fix",
        "paste_privacy": (
            "Secrets (tokens, keys, passwords, webhook URLs) are redacted before anything "
            "is stored or shown; only a short redacted excerpt is kept."
        ),
        "paste_examples": "Knows about",
        "result_title": "Result",
        "result_best": "Best match",
        "confidence": "confidence",
        "high": "high",
        "medium": "medium",
        "low": "low",
        "cause": "Cause",
        "cause_hint": "why this happens",
        "fix": "Fix",
        "evidence": "Your log",
        "evidence_lead": "The lines that matched, with their line numbers in what you sent.",
        "lines_of": "lines",
        "redactions": "secrets redacted",
        "ranks": "Ranks",
        "rank": "rank",
        "rank_breakdown": "Per rank",
        "root_cause": "root cause",
        "consequence": "consequence",
        "other_candidates": "Other candidates",
        "read_article": "Read the article",
        "feedback_q": "Did this fix it?",
        "fixed_it": "Yes, fixed it",
        "wrong_article": "Wrong article",
        "this_one": "This one was right",
        "thanks": "Thank you: your feedback counts in the article's statistics.",
        "permalink": "Permalink (shows only redacted text)",
        "not_saved": "This answer could not be saved, so it has no permalink.",
        "unknown_title": "No known article matches this log",
        "unknown_lead": (
            "errkb found these error events but no article recognises them. The error is now "
            "counted on the KB's to-do list. If you know the fix, please write the article."
        ),
        "no_events": "No error event was found in this log.",
        "write_article": "Start an article",
        "write_lead": "Save as kb/articles/<id>.yaml, fill in the cause and fix, run errkb lint.",
        "events": "Error events",
        "articles_title": "Articles",
        "search": "Search",
        "search_placeholder": "Search in English or 中文",
        "library": "Library",
        "tag": "Tag",
        "all": "All",
        "found": "articles",
        "no_articles": "No article matches this search.",
        "summary": "Summary",
        "signatures": "Signatures",
        "sig_error": "Error line must match",
        "sig_context": "Context that raises the score",
        "sig_exclude": "Vetoed by",
        "sig_traceback": "Traceback signature",
        "affects": "Affects",
        "references": "References",
        "stats": "Statistics",
        "hits": "top answer",
        "fixed": "fixed it",
        "wrong": "wrong article",
        "named_right": "named as the right one",
        "stats_unavailable": "Statistics are unavailable right now.",
        "verification": "Verification",
        "not_verified": "The verifier has not recorded a run of this article yet.",
        "environment": "Environment",
        "outcome": "Outcome",
        "date": "Date",
        "layer": "Fault lives in",
        "state": "State",
        "state_draft": "draft",
        "state_active": "active",
        "state_verified": "verified",
        "state_stale": "stale",
        "state_retired": "retired",
        "new_article": "Start an article from this",
        "draft_title": "A draft article for this error",
        "draft_lead": (
            "Seen {n} times and matched by no article. This is what `errkb new` writes: "
            "the exception, a signature with the variable parts masked, and the redacted "
            "samples as must-match examples."
        ),
        "draft_command": "Write it into your KB checkout",
        "draft_review": (
            "Then fill in every TODO(errkb), run errkb lint and errkb dryrun, and open a "
            "pull request. The draft is not served until its status is active."
        ),
        "unmatched_title": "Unknown errors",
        "unmatched_lead": (
            "Errors that no article matched, most frequent first: the knowledge base's to-do list."
        ),
        "seen_once": "seen once",
        "seen_n": "seen {n} times",
        "last_seen": "last seen",
        "no_unmatched": "Nothing here: every error seen so far matched an article.",
        "copy_label": "Copy",
        "copied": "Copied",
        "not_found": "Not found",
        "not_found_lead": "There is nothing at this address.",
        "error_title": "This request could not be handled",
        "back": "Back to the paste page",
        "language": "Language",
        "line": "line",
        "matched": "Matched",
        "paste_another": "Match another log",
        "colon": ": ",
        "line_n": "line {n}",
        "lines_n": "{n} lines",
        "found_n": "{n} articles",
        "found_one": "1 article",
        "recognised": "recognises this error",
        "near_title": "Nearest articles",
        "near_lead": (
            "None of these matched: each scored below the threshold or only shares words with "
            "the error. Read them as leads, not answers."
        ),
        "near_mark": "below threshold",
        "near_text": "similar words",
        "search_library": "Search the library for this message",
        "seen_count": "This error has been seen {n} times so far.",
        "see_unmatched": "All unknown errors",
        "share": "Copy link",
        "link_copied": "Link copied",
        "versions": "Versions in your log",
        "submit_hint": "Ctrl+Enter",
        "upload_compressing": "Compressing in your browser…",
        "upload_sending": "Sending {done} of {total}…",
        "upload_trimmed": (
            "This file is {size}: only its first {head} and last {tail} are sent, with a marker "
            "where the middle was left out (as errkb report does)."
        ),
        "upload_failed": (
            "The upload failed ({why}). Your file is still chosen: press the button to try "
            "again, gzip it first (gzip train.log), or send it from the job with "
            "errkb report train.log."
        ),
    },
    "zh": {
        "tagline": "粘贴报错，拿到修复方法。",
        "nav_paste": "匹配日志",
        "nav_articles": "文章",
        "nav_unmatched": "未知错误",
        "paste_title": "训练为什么挂了？",
        "paste_lead": (
            "粘贴报错堆栈或整份任务日志（多 rank 也可以），或者拖入日志文件。"
            "errkb 会找出根因以及能修复它的文章。"
        ),
        "paste_placeholder": "Traceback (most recent call last):\n  ...",
        "paste_text_label": "报错堆栈或日志",
        "paste_file_label": "……或上传日志文件（.log、.txt、.gz）",
        "paste_drop": "把日志文件拖到这里",
        "paste_submit": "查找修复方法",
        "paste_privacy": (
            "令牌、密钥、密码、Webhook 地址等敏感信息在保存或展示之前都会被脱敏；"
            "只保留一小段脱敏后的摘录。"
        ),
        "paste_examples": "已收录",
        "result_title": "匹配结果",
        "result_best": "最佳匹配",
        "confidence": "置信度",
        "high": "高",
        "medium": "中",
        "low": "低",
        "cause": "原因",
        "cause_hint": "为什么会出现",
        "fix": "修复",
        "evidence": "你的日志",
        "evidence_lead": "匹配到的行，行号对应你提交的内容。",
        "lines_of": "行",
        "redactions": "处敏感信息已脱敏",
        "ranks": "Rank",
        "rank": "rank",
        "rank_breakdown": "各 rank 情况",
        "root_cause": "根因",
        "consequence": "连带错误",
        "other_candidates": "其他候选",
        "read_article": "阅读文章",
        "feedback_q": "问题解决了吗？",
        "fixed_it": "解决了",
        "wrong_article": "文章不对",
        "this_one": "应该是这篇",
        "thanks": "谢谢！你的反馈会计入文章的统计。",
        "permalink": "永久链接（只显示脱敏后的文本）",
        "not_saved": "这次结果未能保存，因此没有永久链接。",
        "unknown_title": "没有已知文章能匹配这份日志",
        "unknown_lead": (
            "errkb 找到了下面这些错误事件，但没有文章能识别它们。该错误已记入知识库的待办列表。"
            "如果你知道修复方法，欢迎撰写文章。"
        ),
        "no_events": "这份日志里没有找到错误事件。",
        "write_article": "开始写一篇文章",
        "write_lead": "保存为 kb/articles/<id>.yaml，填写原因和修复方法，然后运行 errkb lint。",
        "events": "错误事件",
        "articles_title": "文章",
        "search": "搜索",
        "search_placeholder": "用中文或 English 搜索",
        "library": "库",
        "tag": "标签",
        "all": "全部",
        "found": "篇文章",
        "no_articles": "没有符合条件的文章。",
        "summary": "摘要",
        "signatures": "特征签名",
        "sig_error": "错误行必须匹配",
        "sig_context": "提高分数的上下文",
        "sig_exclude": "排除条件",
        "sig_traceback": "堆栈签名",
        "affects": "受影响版本",
        "references": "参考资料",
        "stats": "统计",
        "hits": "次作为首选答案",
        "fixed": "次解决了问题",
        "wrong": "次文章不对",
        "named_right": "次被指为正确文章",
        "stats_unavailable": "统计数据暂时不可用。",
        "verification": "验证",
        "not_verified": "验证器还没有记录这篇文章的运行结果。",
        "environment": "环境",
        "outcome": "结果",
        "date": "日期",
        "layer": "故障所在层",
        "state": "状态",
        "state_draft": "草稿",
        "state_active": "有效",
        "state_verified": "已验证",
        "state_stale": "已过时",
        "state_retired": "已退役",
        "new_article": "据此新建文章",
        "draft_title": "为这个错误起草一篇文章",
        "draft_lead": (
            "出现过 {n} 次，没有文章匹配。下面是 `errkb new` 会写出的内容：异常类型、"
            "把可变部分遮蔽后的签名，以及作为必须匹配示例的脱敏样本。"
        ),
        "draft_command": "在你的知识库仓库里写出它",
        "draft_review": (
            "然后补全每一处 TODO(errkb)，运行 errkb lint 和 errkb dryrun，再提交合并请求。"
            "状态改为 active 之前，草稿不会被使用。"
        ),
        "unmatched_title": "未知错误",
        "unmatched_lead": "没有文章匹配到的错误，按出现次数排序：知识库的待办列表。",
        "seen_once": "出现 1 次",
        "seen_n": "出现 {n} 次",
        "last_seen": "最近一次",
        "no_unmatched": "这里是空的：目前见到的错误都匹配到了文章。",
        "copy_label": "复制",
        "copied": "已复制",
        "not_found": "未找到",
        "not_found_lead": "这个地址没有内容。",
        "error_title": "无法处理这个请求",
        "back": "返回粘贴页面",
        "language": "语言",
        "line": "行",
        "matched": "匹配到",
        "paste_another": "再匹配一份日志",
        "colon": "：",
        "line_n": "第 {n} 行",
        "lines_n": "共 {n} 行",
        "found_n": "共 {n} 篇文章",
        "found_one": "共 1 篇文章",
        "recognised": "能识别这条报错",
        "near_title": "最接近的文章",
        "near_lead": (
            "以下文章都没有匹配上：分数低于阈值，或只是与报错有相同的词。可作线索参考，并非答案。"
        ),
        "near_mark": "低于阈值",
        "near_text": "用词相近",
        "search_library": "在文章库中搜索这条报错",
        "seen_count": "这个错误迄今已出现 {n} 次。",
        "see_unmatched": "全部未知错误",
        "share": "复制链接",
        "link_copied": "链接已复制",
        "versions": "日志中的版本",
        "submit_hint": "Ctrl+Enter",
        "upload_compressing": "正在浏览器中压缩……",
        "upload_sending": "正在发送：{done}／{total}……",
        "upload_trimmed": (
            "文件大小为 {size}：只发送开头 {head} 和结尾 {tail}，中间省略处留有标记"
            "（与 errkb report 的做法相同）。"
        ),
        "upload_failed": (
            "上传失败（{why}）。文件仍然保留着：可以再按一次按钮重试，或先用 gzip 压缩"
            "（gzip train.log），或在任务里用 errkb report train.log 发送。"
        ),
    },
}


STATUS_ZH = {
    400: "请求无效",
    403: "请求被拒绝",
    413: "日志超过了大小上限",
    415: "不支持这种编码",
    422: "内容无法处理",
    429: "请求太频繁，请稍后再试",
    503: "服务正忙，请稍后再试",
}
"""What a refused request means, for Chinese pages: the HTTP layer's own messages are English."""


def refusal(lang: str, status: int, message: str) -> str:
    """``message`` for a page in ``lang``: in Chinese the meaning first, the detail after."""
    lead = STATUS_ZH.get(status) if lang == "zh" else None
    return f"{lead}（{message}）" if lead and message else message


def words(lang: str) -> Mapping[str, str]:
    """The strings of ``lang`` (English for anything else)."""
    return MESSAGES.get(lang, MESSAGES["en"])


def choose_lang(
    query: str | None, cookie: str | None, accept_language: str | None, default: str
) -> str:
    """``?lang=``, then the cookie, then Accept-Language, then ``default``."""
    if query in LANGS:
        return query
    return negotiate_lang(cookie, accept_language, default)
