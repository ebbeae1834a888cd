"""scripts/census.py from the command line: the JSON it writes, where the spec comes from
(--spec, or `ndlua verify.lua --json`), and bad input (exit 2 with a clear message)."""

import json
import os
import stat
import tempfile
import unittest

import torch

from census_helpers import ROOT, SPECS, kind_record, run_cli, spec, write_json
from census_layers import hf

OPS = {"attMM", "attBMM", "ffMM", "softmax", "dropout", "normOp", "gather", "headCast",
       "ffAct", "linrec", "other"}
FIELDS = {"saved", "saved_tp", "working", "working_tp", "selective", "selective_tp", "ops",
          "ops_tp", "seq_length"}


def fixture(name):
    """Path of a spec fixture."""
    return os.path.join(SPECS, f"{name}.json")


class Document(unittest.TestCase):
    """The JSON document for a spec file."""

    @classmethod
    def setUpClass(cls):
        cls.status, out, cls.err = run_cli("deepseek-ai/DeepSeek-V3", "--spec",
                                           fixture("deepseek_v3"), "--seq-len", "64")
        cls.doc = json.loads(out) if cls.status == 0 else None

    def test_exits_zero(self):
        """A good spec runs."""
        self.assertEqual(self.status, 0, self.err)

    def test_shape(self):
        """activations by kind (dense, moe; the MTP group skipped), output_activations,
        provenance; each record has exactly the record fields, every op in its maps."""
        self.assertEqual(set(self.doc), {"activations", "output_activations", "provenance"})
        self.assertEqual(set(self.doc["activations"]), {"dense", "moe"})
        for rec in list(self.doc["activations"].values()) + [self.doc["output_activations"]]:
            self.assertEqual(set(rec), FIELDS)
            self.assertEqual(set(rec["ops"]), OPS)
            self.assertEqual(set(rec["ops_tp"]), OPS)
            self.assertEqual(rec["seq_length"], 64)
            self.assertAlmostEqual(sum(rec["ops"].values()), rec["saved"])
            self.assertAlmostEqual(sum(rec["ops_tp"].values()), rec["saved_tp"])
            for key in FIELDS - {"ops", "ops_tp", "seq_length"}:
                self.assertGreaterEqual(rec[key], 0)

    def test_provenance(self):
        """torch version, path, model, dims, dtype, attention, seq_length."""
        prov = self.doc["provenance"]
        self.assertEqual(prov["path"], "reference-layers")
        self.assertEqual(prov["model"], "deepseek_v3")
        self.assertEqual(prov["dtype"], "bf16")
        self.assertEqual(prov["attention"], "flash")
        self.assertEqual(prov["seq_length"], 64)
        self.assertEqual(prov["dims"]["kv_lora_rank"], 16)
        self.assertTrue(prov["torch"])

    def test_numbers_are_the_census(self):
        """The CLI's dense record is the library's."""
        self.assertEqual(self.doc["activations"]["dense"],
                         kind_record(spec("deepseek_v3"), "dense"))


class Outputs(unittest.TestCase):
    """--out, --eager, the wrapped spec."""

    def test_out_file_and_wrapped_spec(self):
        """--out writes the document; a spec wrapped as {"model": ...} (verify.lua's JSON)
        reads the same; GPT-2 is eager whatever is asked."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(fixture("gpt"), encoding="utf-8") as f:
                wrapped = write_json(tmp, "verify.json", {"source": "x", "model": json.load(f)})
            out = os.path.join(tmp, "census.json")
            status, stdout, err = run_cli("gpt2", "--spec", wrapped, "--seq-len", "32",
                                          "--dtype", "fp16", "--out", out)
            self.assertEqual((status, stdout), (0, ""), err)
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
        self.assertEqual(doc["provenance"]["attention"], "eager")
        self.assertEqual(doc["provenance"]["dtype"], "fp16")

    def test_eager_flag(self):
        """--eager is recorded and changes the attention bytes."""
        _, flash, _ = run_cli("x", "--spec", fixture("llama"), "--seq-len", "64")
        _, eager, _ = run_cli("x", "--spec", fixture("llama"), "--seq-len", "64", "--eager")
        flash, eager = json.loads(flash), json.loads(eager)
        self.assertEqual(eager["provenance"]["attention"], "eager")
        self.assertGreater(eager["activations"]["decoder"]["saved_tp"],
                           flash["activations"]["decoder"]["saved_tp"])


def fake_ndlua(directory, body):
    """An executable shell script standing in for ndlua."""
    path = os.path.join(directory, "ndlua")
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class FromNdlua(unittest.TestCase):
    """Without --spec the spec comes from `$NDLUA verify.lua --json ARG`."""

    def test_reads_model_from_verify(self):
        """The fake ndlua checks its arguments and prints {"source", "model"}."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(fixture("llama"), encoding="utf-8") as f:
                model = json.load(f)
            doc = write_json(tmp, "doc.json", {"source": {"kind": "catalog", "path": "/c.json"},
                                               "model": model})
            nd = fake_ndlua(tmp, f'[ "$1 $2 $3" = "verify.lua --json org/model" ] || exit 3\n'
                                 f'cat "{doc}"\n')
            status, out, err = run_cli("org/model", "--seq-len", "16",
                                       env=dict(os.environ, NDLUA=nd))
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["provenance"]["source"], "/c.json")

    def test_ndlua_failure_is_reported(self):
        """ndlua's own message and status are passed on; census exits 2."""
        with tempfile.TemporaryDirectory() as tmp:
            nd = fake_ndlua(tmp, 'echo "error: no model named org/none" >&2\nexit 2\n')
            status, _, err = run_cli("org/none", "--seq-len", "16", env=dict(os.environ, NDLUA=nd))
        self.assertEqual(status, 2)
        self.assertIn("no model named org/none", err)
        self.assertIn("status 2", err)

    def test_missing_ndlua(self):
        """An ndlua that is not there: exit 2, naming --spec as the way out."""
        status, _, err = run_cli("x", "--seq-len", "16",
                                 env=dict(os.environ, NDLUA="/nonexistent/ndlua"))
        self.assertEqual(status, 2)
        self.assertIn("--spec", err)

    @unittest.skipUnless(os.path.exists(os.path.join(ROOT, "lua", "verify.lua"))
                         and os.access(os.path.join(ROOT, "ndlua"), os.X_OK),
                         "needs ./ndlua and lua/verify.lua")
    def test_real_ndlua_catalog_model(self):
        """The repository's ndlua resolves a catalog hub id; the census measures it on
        meta at its real dims (one dense Llama-style kind)."""
        env = dict(os.environ, NDLUA=os.environ.get("NDLUA", os.path.join(ROOT, "ndlua")))
        status, out, err = run_cli("Qwen/Qwen3-0.6B", "--seq-len", "128", env=env)
        self.assertEqual(status, 0, err)
        doc = json.loads(out)
        self.assertEqual(set(doc["activations"]), {"decoder"})
        self.assertEqual(doc["provenance"]["dims"]["hidden_size"], 1024)


class BadInput(unittest.TestCase):
    """Each bad input: exit 2 and a message naming what is wrong."""

    def fails(self, changes=None, args=(), path=None):
        """Runs the CLI on the llama fixture with `changes`; returns stderr."""
        with tempfile.TemporaryDirectory() as tmp:
            if path is None:
                path = write_json(tmp, "spec.json", spec("llama", **(changes or {})))
            status, out, err = run_cli("x", "--spec", path, "--seq-len", "16", *args)
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertTrue(err.startswith("census: error: "), err)
        return err

    def test_unknown_family(self):
        """An arch without reference layers is named, with the ones there are."""
        err = self.fails({"arch": "t5"})
        self.assertIn("'t5'", err)
        self.assertIn("deepseek", err)

    def test_linear_attention_without_its_dims(self):
        """A linear-attention kind needs the five linear_* dims; the missing are named."""
        err = self.fails({"arch": "qwen3_5", "kinds": {"decoder": {"attention": "linear"}}})
        self.assertIn("linear_num_key_heads", err)
        self.assertIn("linear_conv_kernel_dim", err)

    def test_moe_without_top_k(self):
        """MoE needs num_experts_per_tok."""
        err = self.fails({"num_experts": 8, "moe_intermediate_size": 32})
        self.assertIn("num_experts_per_tok", err)

    def test_mla_without_rope_dims(self):
        """MLA (kv_lora_rank > 0) needs its rope and nope widths."""
        err = self.fails({"arch": "deepseek", "kv_lora_rank": 16,
                          "kinds": {"decoder": {"attention": "full", "ffn": "dense"}}})
        self.assertIn("qk_rope_head_dim", err)

    def test_heads_not_a_multiple_of_kv_heads(self):
        """GQA needs heads divisible by KV heads."""
        self.assertIn("num_key_value_heads", self.fails({"num_key_value_heads": 3}))

    def test_no_layer_stack(self):
        """A spec without `layers` is refused."""
        self.assertIn("layers", self.fails({"layers": None}))

    def test_kind_not_described(self):
        """A stack naming a kind `kinds` lacks."""
        self.assertIn("'moe'", self.fails({"layers": [{"kind": "moe", "count": 2}]}))

    def test_non_positive_width(self):
        """Widths must be positive whole numbers."""
        self.assertIn("hidden_size", self.fails({"hidden_size": -64}))

    def test_bad_seq_len(self):
        """--seq-len 0."""
        self.assertIn("--seq-len", self.fails(args=("--seq-len", "0")))

    def test_bad_dtype(self):
        """--dtype fp8 is not a choice."""
        self.assertIn("fp8", self.fails(args=("--dtype", "fp8")))

    def test_missing_spec_file(self):
        """A spec file that is not there."""
        self.assertIn("cannot read", self.fails(path="/nonexistent/spec.json"))

    def test_malformed_spec_file(self):
        """A spec file that is not JSON: its path and the place are named."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write('{"hidden_size": 64,,}')
            err = self.fails(path=path)
        self.assertIn("bad.json", err)
        self.assertIn("line 1", err)

    @unittest.skipIf(hf.available(), "transformers is importable here")
    def test_transformers_path_unavailable(self):
        """--layers transformers without transformers (or with torch < 2)."""
        self.assertIn("transformers", self.fails(args=("--layers", "transformers")))

    @unittest.skipUnless(torch.__version__.startswith("1."), "newer torch runs fp16 on CPU")
    def test_fp16_on_cpu(self):
        """torch 1.13 has no fp16 CPU kernels: a clear message pointing at meta."""
        err = self.fails(args=("--device", "cpu", "--dtype", "fp16"))
        self.assertIn("--device meta", err)


if __name__ == "__main__":
    unittest.main()
