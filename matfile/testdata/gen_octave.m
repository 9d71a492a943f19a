% Writes Level 5 fixtures with Octave's save -v7 (compressed) and -v6.
% Run through gen_octave.py (which also writes the expectations).
d = [1.5 -2 NaN; Inf 0 1e300];
f4 = single([1.25; -3.5]);
i8 = int8([-128 0 127]); u8 = uint8([0 1 255]);
i16 = int16([-32768 1 32767]); u16 = uint16([0 65535]);
i32 = int32([-2147483648 5 2147483647]); u32 = uint32([0 4294967295]);
i64 = int64([-9223372036854775807 7 9223372036854775807]);
u64 = uint64([0 18446744073709551615]);
z = [1+2i, -3.5-0.5i; 0, 4i];
zs = single([1+1i 2-2i]);
b = logical([1 0; 0 1; 1 1]);
s = 'hello';
sm = ['abc'; 'def'];
c = {1, 'two', [3 4]; int16(7), {5, 'x'}, true};
st.a = [1 2];
st.b = 'text';
st.c.x = uint8(9);
st.c.y = {1, 'y'};
sa = struct('a', {1, [2 3], []}, 'b', {'one', 'two', ''});
sp = sparse([1 3 3 4], [2 1 4 3], [1.5 3 -1 4], 4, 5);
spz = sparse([1 2], [1 2], [1+2i, -3i], 2, 3);
e00 = [];
e10 = zeros(1, 0);
e03 = int32(zeros(0, 3));
ecell = {};
cube = reshape(0:23, 2, 3, 4);
scalar = 42;
c3 = reshape('abcdefghijkl', 2, 3, 2);
pad = ['ab '; 'cde'];
names = {'d', 'f4', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'z', 'zs', 'b', 's', 'sm', ...
         'c', 'st', 'sa', 'sp', 'spz', 'e00', 'e10', 'e03', 'ecell', 'cube', 'scalar', 'c3', 'pad'};
save('-v7', 'octave_v7.mat', names{:});
save('-v6', 'octave_v6.mat', names{:});
% Quirks: non-ASCII text (Octave holds UTF-8 bytes, saves UTF-16) and a
% logical sparse, which Octave 7 writes as a uint8 logical array holding
% sparse ir/jc/pr subelements (scipy refuses it; Octave reads it back wrong).
% Characters outside the BMP: Octave saves them as UTF-16 surrogate pairs,
% as MATLAB does (a 1x6 row of UTF-8 bytes is a 1x4 char in the file).
su = 'héllo €';
spb = sparse(logical([1 0 0; 0 1 0]));
se = 'a😀b';
se2 = '𝄞 🚀🚀';
save('-v7', 'octave_quirks_v7.mat', 'su', 'spb', 'se', 'se2');
save('-v6', 'octave_quirks_v6.mat', 'su', 'spb', 'se', 'se2');
