"""Provider calls over urllib against a real local server: wire formats, faults, retries, limits,
secrets."""

import contextlib
import json
import os
import threading
import time
import unittest

from fake_provider import (FakeClock, FakeProvider, Reply, anthropic_success, chat_success,
                           gemini_success, openai_success)
from support import EXAMPLES, TempDirTestCase, ehq_ref

CANARY = "sk-canary-7f3a9c2e1d8b4a6f0e5d"
REQUEST = ehq_ref.Request(purpose="answer", system="You are a helpful assistant.",
                          prompt="Who won the Olympic roque tournament in 1904?", max_tokens=512,
                          item_id="HNQ-SPO-001")
KIND = {"openai": "openai", "openai_compatible": "chat", "huggingface": "chat", "gemini": "gemini",
        "anthropic": "anthropic", "vertex": "gemini"}
MODEL = {
    "openai": "gpt-4o-mini", "openai_compatible": "local-model",
    "huggingface": "meta-llama/Llama-3.1-8B-Instruct", "gemini": "gemini-2.5-flash",
    "anthropic": "claude-sonnet-4-20250514", "vertex": "gemini-2.5-flash"
}


class ProviderCase(unittest.TestCase):
    provider = "openai"

    def setUp(self):
        self.server = FakeProvider(KIND[self.provider])
        self.addCleanup(self.server.close)
        self.clock = FakeClock()
        self.events = []
        self.secrets = ehq_ref.Secrets(environ={"TEST_KEY": CANARY})

    def route(self, **changes):
        fields = dict(name="r", provider=self.provider, provider_model=MODEL[self.provider],
                      base_url=self.server.base_url, api_key_env="TEST_KEY", read_timeout=5.0)
        fields.update(changes)
        return ehq_ref.Route(**fields)

    def call(self, route=None, policy=None, limiter=None, request=REQUEST):
        return ehq_ref.call_model(route or self.route(), request, secrets=self.secrets,
                                  clock=self.clock, policy=policy or
                                  ehq_ref.RetryPolicy(max_retries=3), emit=self.events.append,
                                  limiter=limiter or ehq_ref.RateLimiter(clock=self.clock))


class OpenAIResponsesTest(ProviderCase):
    provider = "openai"

    def test_success_request_and_response(self):
        response = self.call()
        self.assertTrue(response.ok, response)
        self.assertEqual((response.text, response.resolved_model, response.attempts),
                         ("The answer is Charles Jacobus.", "gpt-4o-mini-2024-07-18", 1))
        self.assertEqual(
            response.usage, {
                "input_tokens": 12, "output_tokens": 3, "reasoning_tokens": 0, "cached_tokens": 2,
                "cost": None
            })
        sent = self.server.requests[0]
        self.assertEqual(sent["path"], "/v1/responses")
        self.assertEqual(sent["headers"]["authorization"], f"Bearer {CANARY}")
        self.assertEqual(sent["headers"]["content-type"], "application/json")
        self.assertEqual(
            sent["body"], {
                "model": "gpt-4o-mini", "instructions": "You are a helpful assistant.",
                "input": REQUEST.prompt, "max_output_tokens": 512, "store": False,
                "temperature": 0.0
            })
        self.assertTrue(response.metadata["model_identity_match"])

    def test_text_joins_output_text_parts_and_skips_reasoning_items(self):
        body = openai_success("ignored")
        body["output"] = [{"type": "reasoning", "summary": []}, {
            "type": "message", "content": [{"type": "output_text", "text": "Charles "},
                                           {"type": "output_text", "text": "Jacobus"}]
        }]
        self.server.script(Reply(200, body))
        self.assertEqual(self.call().text, "Charles Jacobus")

    def test_incomplete_is_a_failure_not_an_answer(self):
        self.server.script(
            Reply(
                200, {
                    "id": "r", "status": "incomplete", "incomplete_details": {
                        "reason": "max_output_tokens"
                    }, "model": "gpt-4o-mini", "output": [{"type": "reasoning", "summary": []}],
                    "usage": {"input_tokens": 25, "output_tokens": 64}
                }))
        response = self.call()
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "truncated", 1))

    def test_refusal_part_is_the_answer(self):
        body = openai_success("x")
        body["output"][0]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
        self.server.script(Reply(200, body))
        response = self.call()
        self.assertEqual((response.ok, response.text, response.finish_reason),
                         (True, "I can't help with that.", "refusal"))

    def test_errors_that_are_not_retried(self):
        cases = [(401, "invalid_api_key", "authentication"), (404, "model_not_found", "http"),
                 (400, "unsupported_parameter", "http"), (422, None, "http")]
        for status, code, kind in cases:
            self.server.requests.clear()
            self.server.script(
                Reply(
                    status, {
                        "error": {
                            "message": f"failure {status}", "type": "invalid_request_error",
                            "param": None, "code": code
                        }
                    }))
            response = self.call()
            self.assertEqual(
                (response.ok, response.error_type, response.attempts, response.http_status),
                (False, kind, 1, status), status)
            self.assertEqual(len(self.server.requests), 1)
            self.assertIn(f"failure {status}", response.error_message)
        self.assertEqual(self.clock.sleeps, [])

    def test_insufficient_quota_fails_fast(self):
        self.server.script(
            Reply(
                429, {
                    "error": {
                        "message": "You exceeded your current quota", "type": "insufficient_quota",
                        "param": None, "code": "insufficient_quota"
                    }
                }))
        response = self.call()
        self.assertEqual((response.error_type, response.attempts, self.clock.sleeps),
                         ("quota", 1, []))

    def test_rate_limit_message_hint(self):
        self.server.script(
            Reply(
                429, {
                    "error": {
                        "message": "Rate limit reached. Please try again in 18.642s. Visit ...",
                        "type": "tokens", "code": "rate_limit_exceeded"
                    }
                }))
        response = self.call()
        self.assertEqual((response.ok, response.attempts), (True, 2))
        self.assertEqual(self.clock.sleeps, [18.642])

    def test_retry_hints(self):
        cases = [({"retry-after": "7"}, 7.0), ({"retry-after": "1.5"}, 1.5),
                 ({"retry-after-ms": "250"}, 0.25),
                 ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
                 ({"retry-after": self.clock.http_date(30)}, 30.0)]
        for headers, wait in cases:
            self.clock.sleeps.clear()
            if "retry-after" in headers and "GMT" in headers["retry-after"]:
                headers = {"retry-after": self.clock.http_date(30)}
            self.server.script(
                Reply(429, {"error": {"message": "slow down", "code": "rate_limit_exceeded"}},
                      headers))
            response = self.call()
            self.assertEqual((response.ok, response.attempts), (True, 2), headers)
            self.assertEqual(self.clock.sleeps, [wait], headers)
        retry = [e for e in self.events if e["event"] == "retry"][-1]
        self.assertEqual((retry["reason"], retry["status"], retry["attempt"], retry["wait_s"]),
                         ("rate_limit", 429, 1, 30.0))

    def test_backoff_without_hint_is_seeded_and_exact(self):
        self.server.script(Reply(503, {"error": {"message": "busy"}}),
                           Reply(503, {"error": {"message": "busy"}}))
        policy = ehq_ref.RetryPolicy(max_retries=3, seed=11)
        response = self.call(policy=policy)
        self.assertEqual(response.attempts, 3)
        key = ehq_ref.hash_value(REQUEST.semantic(self.route()))
        expected = []
        for retry in (1, 2):
            u = int(ehq_ref.sha256_hex(f"11|{key}|{retry}")[:13], 16) / 16 ** 13
            expected.append(min(1.0 * 2 ** (retry - 1), 60.0) * (1 - 0.25 * u))
        self.assertEqual(self.clock.sleeps, expected)
        self.assertTrue(0.75 <= expected[0] <= 1.0 and 1.5 <= expected[1] <= 2.0)

    def test_hint_above_cap_fails_instead_of_sleeping(self):
        self.server.script(
            Reply(429, {"error": {"message": "slow", "code": "rate_limit_exceeded"}},
                  {"retry-after": "3600"}))
        response = self.call(policy=ehq_ref.RetryPolicy(max_retries=3, max_wait=120))
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "retry_wait_too_long", 1))
        self.assertIn("asked to wait 3600 s, above the 120 s cap", response.error_message)
        self.assertEqual(self.clock.sleeps, [])

    def test_x_should_retry_false_on_a_500(self):
        self.server.script(Reply(500, {"error": {"message": "boom"}}, {"x-should-retry": "false"}))
        response = self.call()
        self.assertEqual((response.error_type, response.attempts, response.http_status),
                         ("http", 1, 500))

    def test_x_should_retry_true_on_a_400(self):
        self.server.script(
            Reply(400, {"error": {"message": "try again"}}, {"x-should-retry": "true"}))
        self.assertEqual(self.call().attempts, 2)

    def test_retries_exhausted(self):
        self.server.script(*[Reply(502, "<html>bad gateway</html>") for _ in range(4)])
        response = self.call(policy=ehq_ref.RetryPolicy(max_retries=3))
        self.assertEqual(
            (response.ok, response.error_type, response.attempts, len(self.clock.sleeps)),
            (False, "http", 4, 3))
        self.assertEqual([e["attempt"] for e in self.events], [1, 2, 3])

    def test_connection_closed_mid_body_is_retried(self):
        self.server.script(Reply(200, openai_success("partial text"), tear=True))
        response = self.call()
        self.assertEqual((response.ok, response.attempts), (True, 2))
        self.assertEqual(self.events[0]["reason"], "transport")

    def test_read_timeout_is_retried_then_fails(self):
        self.server.script(Reply(200, openai_success("late"), delay=1.0),
                           Reply(200, openai_success("late"), delay=1.0))
        response = self.call(route=self.route(read_timeout=0.2),
                             policy=ehq_ref.RetryPolicy(max_retries=1))
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "timeout", 2))

    def test_invalid_json_is_a_response_format_failure(self):
        self.server.script(Reply(200, "{not json"), Reply(200, "{still not"))
        response = self.call(policy=ehq_ref.RetryPolicy(max_retries=1))
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "response_format", 2))

    def test_strict_identity(self):
        self.assertTrue(
            self.call(route=self.route(model_identity_policy="strict")).ok)  # dated snapshot passes
        self.server.script(Reply(200, openai_success("x", model="gpt-4o")))
        response = self.call(route=self.route(model_identity_policy="strict"))
        self.assertEqual((response.ok, response.error_type), (False, "model_mismatch"))
        body = openai_success("x")
        del body["model"]
        self.server.script(Reply(200, body))
        self.assertEqual(
            self.call(route=self.route(model_identity_policy="strict")).error_type,
            "model_unverified")
        self.server.script(Reply(200, body))
        self.assertTrue(self.call().ok)  # "record" only records

    def test_reasoning_guard(self):
        usage = {
            "input_tokens": 5, "output_tokens": 70,
            "output_tokens_details": {"reasoning_tokens": 64}
        }
        self.server.script(Reply(200, openai_success("x", usage=usage)))
        response = self.call()
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "reasoning_mode_violation", 1))
        self.server.script(Reply(200, openai_success("x", usage=usage)))
        self.assertTrue(self.call(route=self.route(reasoning_mode="enabled")).ok)


class ChatCompletionsTest(ProviderCase):
    provider = "openai_compatible"

    def test_success_request_and_usage(self):
        response = self.call(route=self.route(seed=7))
        self.assertEqual((response.ok, response.text, response.resolved_model),
                         (True, "The answer is Charles Jacobus.", "local-model"))
        sent = self.server.requests[0]
        self.assertEqual(sent["path"], "/v1/chat/completions")
        self.assertEqual(
            sent["body"], {
                "model": "local-model", "messages": [{
                    "role": "system", "content": "You are a helpful assistant."
                }, {"role": "user", "content": REQUEST.prompt}], "max_tokens": 512, "stream": False,
                "temperature": 0.0, "seed": 7
            })
        self.assertEqual(response.usage["input_tokens"], 26)

    def test_no_key_needed_and_none_sent_when_unset(self):
        self.secrets = ehq_ref.Secrets(environ={})
        response = self.call(route=self.route(api_key_env=None))
        self.assertTrue(response.ok)
        self.assertNotIn("authorization", self.server.requests[0]["headers"])

    def test_key_sent_when_set_even_if_not_required(self):
        self.call(route=self.route(requires_api_key=False))
        self.assertEqual(self.server.requests[0]["headers"]["authorization"], f"Bearer {CANARY}")

    def test_finish_reason_length_is_truncation(self):
        self.server.script(Reply(200, chat_success("cut", finish="length")))
        self.assertEqual(self.call().error_type, "truncated")

    def test_null_content_with_refusal(self):
        body = chat_success("x")
        body["choices"][0]["message"] = {
            "role": "assistant", "content": None, "refusal": "I won't answer."
        }
        self.server.script(Reply(200, body))
        self.assertEqual(self.call().text, "I won't answer.")

    def test_openrouter_padding_cost_and_error_inside_200(self):
        usage = {
            "prompt_tokens": 19, "completion_tokens": 4, "total_tokens": 23, "cost": 0.00106375,
            "prompt_tokens_details": {"cached_tokens": 3},
            "completion_tokens_details": {"reasoning_tokens": 0}
        }
        padded = "\n         \n\n " + json.dumps(
            dict(chat_success("Ola", model="openai/gpt-5-2025-08-07", usage=usage),
                 provider="OpenAI"))
        self.server.script(Reply(200, {"error": {"message": "Provider returned error", "code": 429,
                                                 "metadata": {"raw": "upstream is rate-limited"}}}),
                           Reply(200, padded))
        response = self.call(
            route=self.route(provider_model="openai/gpt-5", model_identity_policy="strict"))
        self.assertEqual((response.ok, response.attempts, response.text), (True, 2, "Ola"))
        self.assertEqual(
            response.usage, {
                "input_tokens": 19, "output_tokens": 4, "reasoning_tokens": 0, "cached_tokens": 3,
                "cost": 0.00106375
            })
        self.assertIn("upstream is rate-limited", self.events[0]["message"])

    def test_openrouter_402_and_vllm_flat_error(self):
        self.server.script(Reply(402, {"error": {"message": "Insufficient credits", "code": 402}}))
        self.assertEqual((self.call().error_type, self.server.requests.__len__()), ("quota", 1))
        self.server.script(
            Reply(
                400, {
                    "object": "error", "message": "maximum context length",
                    "type": "BadRequestError", "param": None, "code": 400
                }))
        response = self.call()
        self.assertEqual((response.error_type, response.attempts), ("http", 1))
        self.assertIn("maximum context length", response.error_message)

    def test_reasoning_tokens_in_chat_usage(self):
        usage = {
            "prompt_tokens": 5, "completion_tokens": 9,
            "completion_tokens_details": {"reasoning_tokens": 5}
        }
        self.server.script(Reply(200, chat_success("x", usage=usage)))
        self.assertEqual(self.call().error_type, "reasoning_mode_violation")


class HuggingFaceTest(ProviderCase):
    provider = "huggingface"

    def test_router_header_and_policy_suffix(self):
        self.server.script(Reply(200, chat_success("ok", model="meta-llama/Llama-3.1-8B-Instruct"),
                                 {"x-inference-provider": "together"}))
        response = self.call(
            route=self.route(provider_model="meta-llama/Llama-3.1-8B-Instruct:fastest",
                             model_identity_policy="strict"))
        self.assertTrue(response.ok, response)
        self.assertEqual(response.metadata["x-inference-provider"], "together")
        self.assertEqual(self.server.requests[0]["body"]["model"],
                         "meta-llama/Llama-3.1-8B-Instruct:fastest")


class GeminiTest(ProviderCase):
    provider = "gemini"

    def test_success_request_shape(self):
        response = self.call()
        self.assertEqual((response.ok, response.resolved_model, response.request_id),
                         (True, "gemini-2.5-flash", "resp-gemini-1"))
        sent = self.server.requests[0]
        self.assertEqual(sent["path"], "/v1beta/models/gemini-2.5-flash:generateContent")
        self.assertEqual(sent["headers"]["x-goog-api-key"], CANARY)
        self.assertNotIn("authorization", sent["headers"])
        self.assertEqual(
            sent["body"]["generationConfig"],
            {"maxOutputTokens": 512, "temperature": 0.0, "thinkingConfig": {"thinkingBudget": 0}})
        self.assertEqual(sent["body"]["systemInstruction"],
                         {"parts": [{"text": "You are a helpful assistant."}]})

    def test_thought_parts_skipped_and_counted(self):
        body = gemini_success("x")
        body["candidates"][0]["content"]["parts"] = [{"text": "thinking...", "thought": True},
                                                     {"text": "Ola!"}]
        body["usageMetadata"] = {
            "promptTokenCount": 11, "candidatesTokenCount": 2, "thoughtsTokenCount": 29
        }
        self.server.script(Reply(200, body), Reply(200, body))
        response = self.call(route=self.route(reasoning_mode="enabled"))
        self.assertEqual(
            (response.text, response.usage["output_tokens"], response.usage["reasoning_tokens"]),
            ("Ola!", 31, 29))
        self.assertEqual(self.call().error_type, "reasoning_mode_violation")

    def test_max_tokens_without_content_and_blocked_prompt(self):
        self.server.script(Reply(200, {"candidates": [{"finishReason": "MAX_TOKENS", "index": 0}],
                                       "usageMetadata": {"promptTokenCount": 3}}))
        self.assertEqual(self.call().error_type, "truncated")
        self.server.script(Reply(200, {"promptFeedback": {"blockReason": "SAFETY"}}))
        response = self.call()
        self.assertEqual((response.error_type, response.attempts), ("blocked", 1))

    def test_invalid_key_is_authentication(self):
        self.server.script(
            Reply(
                400, {
                    "error": {
                        "code": 400, "message": "API key not valid. Please pass a valid API key.",
                        "status": "INVALID_ARGUMENT", "details": [{
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID"
                        }]
                    }
                }))
        self.assertEqual((self.call().error_type, len(self.server.requests)), ("authentication", 1))

    def quota(self, quota_id, delay):
        return {
            "error": {
                "code": 429, "message": "You exceeded your current quota",
                "status": "RESOURCE_EXHAUSTED",
                "details": [{"@type": "type.googleapis.com/google.rpc.Help", "links": []}, {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaId": quota_id}]
                }, {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}]
            }
        }

    def test_retry_info_delays(self):
        for delay, wait in (("26s", 26.0), ("1.5s", 1.5)):
            self.clock.sleeps.clear()
            self.server.script(
                Reply(429, self.quota("GenerateContentInputTokensPerModelPerMinute-FreeTier",
                                      delay)))
            response = self.call()
            self.assertEqual((response.ok, self.clock.sleeps), (True, [wait]))

    def test_per_day_quota_fails_fast(self):
        self.server.script(
            Reply(429, self.quota("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "20s")))
        response = self.call()
        self.assertEqual((response.error_type, response.attempts, self.clock.sleeps),
                         ("quota", 1, []))

    def test_vertex_endpoint(self):
        route = self.route(provider="vertex", base_url=self.server.origin)
        with _environ(GOOGLE_CLOUD_PROJECT="my-project", GOOGLE_CLOUD_LOCATION="europe-west1"):
            response = self.call(route=route)
        self.assertTrue(response.ok, response)
        sent = self.server.requests[0]
        self.assertEqual(
            sent["path"], "/v1/projects/my-project/locations/europe-west1/publishers/google/models/"
            "gemini-2.5-flash:generateContent")
        self.assertEqual(sent["headers"]["authorization"], f"Bearer {CANARY}")
        with _environ(GOOGLE_CLOUD_PROJECT=None):
            self.assertEqual(self.call(route=route).error_type, "configuration")


class AnthropicTest(ProviderCase):
    provider = "anthropic"

    def test_success_headers_and_usage(self):
        response = self.call()
        self.assertTrue(response.ok, response)
        sent = self.server.requests[0]
        self.assertEqual(sent["path"], "/v1/messages")
        self.assertEqual((sent["headers"]["x-api-key"], sent["headers"]["anthropic-version"]),
                         (CANARY, "2023-06-01"))
        self.assertEqual(
            sent["body"], {
                "model": MODEL["anthropic"], "max_tokens": 512,
                "system": "You are a helpful assistant.",
                "messages": [{"role": "user", "content": REQUEST.prompt}], "temperature": 0.0
            })
        self.assertEqual(
            response.usage, {
                "input_tokens": 20, "output_tokens": 50, "reasoning_tokens": None,
                "cached_tokens": 4, "cost": None
            })

    def test_overloaded_529_retried_and_max_tokens_truncated(self):
        self.server.script(
            Reply(
                529, {
                    "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
                    "request_id": "req_1"
                }, {"retry-after": "2"}))
        self.assertEqual((self.call().attempts, self.clock.sleeps), (2, [2.0]))
        body = anthropic_success("cut")
        body["stop_reason"] = "max_tokens"
        self.server.script(Reply(200, body))
        self.assertEqual(self.call().error_type, "truncated")

    def test_thinking_blocks_violate_disabled_reasoning(self):
        body = anthropic_success("answer")
        body["content"].insert(0, {"type": "thinking", "thinking": "...", "signature": "s"})
        self.server.script(Reply(200, body))
        self.assertEqual(self.call().error_type, "reasoning_mode_violation")


@contextlib.contextmanager
def _environ(**values):
    saved = {k: os.environ.get(k) for k in values}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class SecretsTest(ProviderCase):
    provider = "openai"

    def test_missing_key_fails_before_any_request(self):
        self.secrets = ehq_ref.Secrets(environ={})
        response = self.call()
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "authentication", 0))
        self.assertIn("TEST_KEY is not set", response.error_message)
        self.assertEqual(self.server.requests, [])

    def test_canary_never_leaks_from_an_authentication_error(self):
        self.server.script(
            Reply(
                401, {
                    "error": {
                        "message": f"Incorrect API key provided: {CANARY}. Also {CANARY[:12]}...",
                        "type": "invalid_request_error", "code": "invalid_api_key"
                    }
                }))
        response = self.call()
        self.assertEqual(response.error_type, "authentication")
        text = json.dumps(response.to_json()) + json.dumps(self.events)
        self.assertNotIn(CANARY, text)
        self.assertNotIn(CANARY[:12], text)
        self.assertIn("[REDACTED]", response.error_message)

    def test_redact_bearer_and_fragments(self):
        self.secrets.get("TEST_KEY")
        self.assertEqual(self.secrets.redact(f"Authorization: Bearer {CANARY}"),
                         "Authorization: Bearer [REDACTED]")
        self.assertNotIn(CANARY[-10:], self.secrets.redact(f"key ends with {CANARY[-10:]}"))

    def test_route_public_view_has_no_key(self):
        self.assertNotIn(CANARY, json.dumps(self.route().public()))


class DotenvTest(TempDirTestCase):
    def test_dotenv_never_overrides_the_environment(self):
        path = self.write(".env", "# comment\nexport A_KEY='from-file'\nB_KEY=\"b\"\nEMPTY=\n")
        secrets = ehq_ref.Secrets(environ={"A_KEY": "from-env"}, dotenv=path)
        self.assertEqual((secrets.get("A_KEY"), secrets.get("B_KEY"), secrets.get("EMPTY")),
                         ("from-env", "b", None))

    def test_bad_dotenv_line(self):
        path = self.write(".env", "JUST A LINE\n")
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.Secrets(dotenv=path)
        self.assertIn(".env: line 1: expected KEY=VALUE", str(caught.exception))


class RegistryTest(TempDirTestCase):
    def test_example_registry_has_every_provider(self):
        routes = ehq_ref.load_registry(os.path.join(EXAMPLES, "models.json"))
        self.assertEqual({r.provider for r in routes.values()}, set(ehq_ref.PROVIDERS))
        self.assertEqual(routes["claude-example"].pcq_cutoff, "2025-03-31")

    def test_strict_registry_errors(self):
        cases = [([{"name": "a", "provider": "openai", "provider_model": "m",
                    "colour": 1}], "unknown field 'colour'"),
                 ([{"name": "a", "provider": "acme",
                    "provider_model": "m"}], "$[0].provider: expected one of"),
                 ([{"name": "a", "provider": "openai", "provider_model": "m",
                    "temperature": True}], "got true"),
                 ([{
                     "name": "a", "provider": "openai", "provider_model": "m",
                     "headers": {"Authorization": "x"}
                 }], "credentials belong in the environment"),
                 ([{"name": "a", "provider": "openai_compatible",
                    "provider_model": "m"}], "needs a base_url"),
                 ([{"name": "a", "provider": "openai", "provider_model": "m"}] * 2,
                  "duplicate route name 'a'"), ({"models": [],
                                                 "extra": 1}, "unknown field 'extra'")]
        for document, message in cases:
            target = self.write("models.json", json.dumps(document))
            with self.assertRaises(ehq_ref.InputError, msg=message) as caught:
                ehq_ref.load_registry(target)
            self.assertIn(message, str(caught.exception))

    def test_same_model_on_two_hosts(self):
        document = [{
            "name": "a", "provider": "openai_compatible", "provider_model": "m",
            "base_url": "http://h1/v1"
        }, {
            "name": "b", "provider": "openai_compatible", "provider_model": "m",
            "base_url": "http://h2/v1"
        }]
        self.assertEqual(len(ehq_ref.load_registry(self.write("m.json", json.dumps(document)))), 3)


class LimiterTest(unittest.TestCase):
    def test_window_limit_with_a_fake_clock(self):
        clock = FakeClock(start=0.0)
        limiter = ehq_ref.RateLimiter(requests=3, window=60.0, clock=clock)
        for _ in range(7):
            limiter.acquire()
        self.assertEqual(limiter.log, [0.0, 0.0, 0.0, 60.0, 60.0, 60.0, 120.0])

    def test_pause_holds_everyone(self):
        clock = FakeClock(start=0.0)
        limiter = ehq_ref.RateLimiter(clock=clock)
        limiter.acquire()
        limiter.pause(5.0)
        limiter.acquire()
        self.assertEqual(limiter.log, [0.0, 5.0])

    def test_token_budget_is_settled_with_actual_usage(self):
        clock = FakeClock(start=0.0)
        limiter = ehq_ref.RateLimiter(tokens=1000, window=60.0, clock=clock)
        ticket = limiter.acquire(800)
        limiter.settle(ticket, 100)
        limiter.acquire(800)
        self.assertEqual(limiter.log, [0.0, 0.0])
        limiter.acquire(800)
        self.assertEqual(limiter.log, [0.0, 0.0, 60.0])


class ConcurrencyTest(unittest.TestCase):
    def test_200_calls_at_concurrency_16_with_429s(self):
        server = FakeProvider("chat",
                              responder=lambda body: "answer " + body["messages"][1]["content"])
        self.addCleanup(server.close)
        refused = set()

        def rule(body, index):
            if index % 5 == 0:  # every fifth request is refused (20%)
                refused.add(index)
                return Reply(429, {"error": {"message": "slow down", "code": 429}},
                             {"retry-after": "0.05"})
            return None

        server.rule = rule
        window, limit = 1.0, 120
        limiter = ehq_ref.RateLimiter(requests=limit, window=window)
        route = ehq_ref.Route(name="r", provider="openai_compatible", provider_model="local-model",
                              base_url=server.base_url, requires_api_key=False)
        secrets, events = ehq_ref.Secrets(environ={}), []
        lock = threading.Lock()

        def one(index):
            request = ehq_ref.Request("answer", "sys", f"item-{index}", 16, item_id=str(index))
            response = ehq_ref.call_model(
                route, request, secrets=secrets, limiter=limiter,
                policy=ehq_ref.RetryPolicy(max_retries=8), emit=lambda e:
                (lock.acquire(), events.append(e), lock.release()))
            return index, response

        results = dict(ehq_ref.map_concurrently(one, range(200), concurrency=16))
        self.assertEqual(sorted(results), list(range(200)))
        self.assertTrue(all(r.ok and r.text == f"answer item-{i}" for i, r in results.items()))
        ok_prompts = [
            r["body"]["messages"][1]["content"] for i, r in enumerate(server.requests)
            if i not in refused
        ]
        self.assertEqual(sorted(ok_prompts),
                         sorted(f"item-{i}" for i in range(200)))  # one answer each, none twice
        self.assertEqual(len(events), len(refused))
        self.assertEqual(len(server.requests), 200 + len(refused))
        grants = sorted(limiter.log)
        for start, moment in enumerate(
                grants):  # client side: never more than the limit in any window
            inside = sum(1 for t in grants[start:] if t < moment + window)
            self.assertLessEqual(inside, limit)
        arrivals = sorted(r["time"] for r in server.requests)
        slack = 0.05  # scheduling jitter between a grant and the server seeing the request
        for start, moment in enumerate(arrivals):
            inside = sum(1 for t in arrivals[start:] if t < moment + window - slack)
            self.assertLessEqual(inside, limit)
        self.assertGreater(arrivals[-1] - arrivals[0], window)  # the limit really throttled the run


if __name__ == "__main__":
    unittest.main()
