using System;
using Acme.Util;
using S = Acme.Util.Strings;

namespace Acme.Shop
{
    public class Cart : Base
    {
        private Repo repo = new Repo();

        public void Add(string item)
        {
            var clean = Strings.Trim(item);
            repo.Save(clean);
            this.repo.Save(S.Pad(clean));
            var other = new Repo();
            other.Load(clean);
            Validate();
            base.Close();
        }

        private void Validate() { }
    }

    public class Repo
    {
        public void Save(string key) { }
        public string Load(string key) { return key; }
    }

    public class Base
    {
        public void Close() { }
    }

    public class CartTests
    {
        [Fact]
        public void AddsItems()
        {
            new Cart().Add("x");
        }
    }
}
