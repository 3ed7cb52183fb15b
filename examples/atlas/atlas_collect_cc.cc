// SPDX-License-Identifier: MIT
// ATLAS data collection in C++ (NodeFactory, Node, Buffer, DynamicGroup), then misuse that must throw.
#include <atlas.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

/*
 * Usage: commrun -n N atlas_collect_cc [events]      (N >= 2, events 500)
 * The C example's pattern with the seed's classes: sources send one
 * fragment per event to node 0, which receives them from a DynamicGroup it
 * fills with the sources, checks each, and answers every source with one
 * group send.  Then node 0 misuses the API on purpose and reports each
 * atlas::Exception ("exception fired: ..."); a misuse that does not throw
 * is a FAIL.
 */

namespace {

struct Frag {
	uint32_t event, source, len;
};

uint32_t frag_len(uint32_t e, uint32_t s) { return 8 + (e * 61u + s * 211u) % 1500u; }
unsigned char frag_byte(uint32_t e, uint32_t s, uint32_t i)
{
	return static_cast<unsigned char>(e * 7u + s * 29u + i);
}

int sources(atlas::NodeFactory &f, uint32_t events)
{
	atlas::Node collector = f.create_node(0);
	for (uint32_t e = 0; e < events; e++) {
		Frag h{e, static_cast<uint32_t>(f.self()), frag_len(e, static_cast<uint32_t>(f.self()))};
		atlas::Buffer b = f.create_buffer(sizeof h + h.len);
		auto *d = static_cast<unsigned char *>(b.data());
		std::memcpy(d, &h, sizeof h);
		for (uint32_t i = 0; i < h.len; i++)
			d[sizeof h + i] = frag_byte(e, h.source, i);
		collector.send(b);      // takes the buffer; waits only when the queue is full
	}
	atlas::Buffer done = collector.receive();
	std::printf("atlas_collect_cc ok: source %d sent %u fragments\n", f.self(), events);
	return 0;
}

template <class F> void expect_throw(const char *what, int code, F fn)
{
	try {
		fn();
	} catch (const atlas::Exception &x) {
		if (x.code() != code) {
			std::printf("FAIL atlas_collect_cc: %s threw %d (%s), want %d\n", what, x.code(),
				    x.message().c_str(), code);
			std::exit(1);
		}
		std::printf("exception fired: %s: %s\n", what, x.message().c_str());
		return;
	}
	std::printf("FAIL atlas_collect_cc: %s did not throw\n", what);
	std::exit(1);
}

int collector(atlas::NodeFactory &f, uint32_t events)
{
	auto g = f.create_group();
	for (int s = 1; s < f.size(); s++)
		g->add(f.create_node(s));
	std::vector<uint32_t> next(static_cast<size_t>(f.size()), 0);
	uint32_t total = events * static_cast<uint32_t>(f.size() - 1);
	for (uint32_t k = 0; k < total; k++) {
		int src = -1;
		atlas::Buffer b = g->receive(&src);
		Frag h;
		std::memcpy(&h, b.data(), sizeof h);
		auto *d = static_cast<const unsigned char *>(b.data());
		bool ok = b.size() == sizeof h + h.len && h.source == static_cast<uint32_t>(src) &&
			  h.event == next[static_cast<size_t>(src)] && h.len == frag_len(h.event, h.source);
		for (uint32_t i = 0; ok && i < h.len; i++)
			ok = d[sizeof h + i] == frag_byte(h.event, h.source, i);
		if (!ok) {
			std::printf("FAIL atlas_collect_cc: fragment %u from node %d\n", k, src);
			return 1;
		}
		next[static_cast<size_t>(src)]++;
	}
	atlas::Buffer done = f.create_buffer(4);
	g->send(done);
	std::printf("atlas_collect_cc ok: collector checked %u fragments from %d sources\n", total,
		    f.size() - 1);

	// misuse: each must raise an atlas::Exception with its code
	expect_throw("create_node(-1)", ATLAS_ERR_RANGE, [&] { f.create_node(-1); });
	expect_throw("create_group(\"nobody\")", ATLAS_ERR_INVAL, [&] { f.create_group("nobody"); });
	expect_throw("add a member twice", ATLAS_ERR_MEMBER, [&] { g->add(f.create_node(1)); });
	expect_throw("remove a non-member", ATLAS_ERR_MEMBER, [&] {
		g->remove(f.create_node(0));
	});
	auto all = f.create_group("all");
	if (all->is_dynamic() || all->size() != f.size()) {
		std::printf("FAIL atlas_collect_cc: static group all\n");
		return 1;
	}
	expect_throw("a second receiving thread", ATLAS_ERR_THREAD, [&] {
		atlas::Exception caught(0);
		bool threw = false;
		std::thread t([&] {
			try {
				f.create_node(1).try_receive();
			} catch (const atlas::Exception &x) {
				caught = x;
				threw = true;
			}
		});
		t.join();
		if (threw)
			throw caught;
	});
	std::printf("atlas_collect_cc ok: misuse raised its exceptions\n");
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	uint32_t events = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 500;
	try {
		atlas::NodeFactory &f = atlas::NodeFactory::instance();
		if (f.size() < 2 || events == 0) {
			std::fprintf(stderr, "usage: commrun -n N atlas_collect_cc [events]   (N >= 2)\n");
			return 2;
		}
		return f.self() == 0 ? collector(f, events) : sources(f, events);
	} catch (const atlas::Exception &x) {
		std::printf("FAIL atlas_collect_cc: %s\n", x.message().c_str());
		return 1;
	}
}
